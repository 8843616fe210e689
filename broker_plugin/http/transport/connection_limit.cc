#include "broker_plugin/http/transport/connection_limit.h"

#include <boost/asio/ip/address.hpp>

#include <cstdio>

namespace fleetmcp::http {
namespace {

// Decrements a count, forgetting keys that reach zero (the maps stay as small as what is open).
void decrement(std::unordered_map<std::string, size_t>& counts, const std::string& key) {
  const auto it = counts.find(key);
  if (it != counts.end() && --it->second == 0) counts.erase(it);
}

size_t count_of(const std::unordered_map<std::string, size_t>& counts, const std::string& key) {
  const auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

std::string address_prefix(std::string_view address) {
  boost::system::error_code ec;
  auto ip = boost::asio::ip::make_address(std::string(address), ec);
  if (ec) return std::string(address);
  if (ip.is_v6() && ip.to_v6().is_v4_mapped()) ip = boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, ip.to_v6());
  char text[64];
  if (ip.is_v4()) {
    const auto b = ip.to_v4().to_bytes();
    std::snprintf(text, sizeof text, "%u.%u.%u.0/24", b[0], b[1], b[2]);
  } else {
    const auto b = ip.to_v6().to_bytes();
    std::snprintf(text, sizeof text, "%x:%x:%x:%x::/64", b[0] << 8 | b[1], b[2] << 8 | b[3], b[4] << 8 | b[5],
                  b[6] << 8 | b[7]);
  }
  return text;
}

ConnectionLimit::Ticket::Ticket(std::shared_ptr<ConnectionLimit> limit, std::string address, std::string prefix,
                                bool probation)
    : limit_(std::move(limit)), address_(std::move(address)), prefix_(std::move(prefix)), probation_(probation) {}

ConnectionLimit::Ticket::~Ticket() {
  std::lock_guard<std::mutex> lock(limit_->mutex_);
  if (!evicted_) limit_->release_locked(*this);
}

void ConnectionLimit::Ticket::on_evict(std::function<void()> close) {
  std::lock_guard<std::mutex> lock(limit_->mutex_);
  close_ = std::move(close);
}

ConnectionLimit::Ticket::Verdict ConnectionLimit::Ticket::request(std::string_view tenant) {
  std::lock_guard<std::mutex> lock(limit_->mutex_);
  if (evicted_) return Verdict::kAdmitted;  // its close is on the way; the place is another's
  if (tenant.empty()) return probation_ ? Verdict::kOnProbationWithoutToken : Verdict::kAdmitted;
  size_t& theirs = limit_->per_tenant_[std::string(tenant)];
  if (theirs >= limit_->caps_.per_tenant) return Verdict::kTenantFull;
  ++theirs;
  tenant_ = std::string(tenant);
  authenticated_ = true;
  --limit_->unauthenticated_;
  limit_->unlist_locked(*this);
  return Verdict::kAdmitted;
}

void ConnectionLimit::Ticket::waiting(bool waiting) {
  std::lock_guard<std::mutex> lock(limit_->mutex_);
  if (evicted_ || authenticated_) return;
  if (waiting) limit_->list_locked(*this);
  else limit_->unlist_locked(*this);
}

std::unique_ptr<ConnectionLimit::Ticket> ConnectionLimit::admit(std::string_view address_view) {
  std::string address(address_view), prefix = address_prefix(address_view);
  std::function<void()> close_evicted;
  std::unique_ptr<Ticket> ticket;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool address_full = count_of(per_address_, address) >= caps_.per_address;
    const bool prefix_full = count_of(per_prefix_, prefix) >= caps_.per_prefix;
    if (address_full || prefix_full || (open_ >= caps_.total && waiting_.empty())) {
      ++refused_;
      return nullptr;
    }
    if (open_ >= caps_.total) {  // make room: the unauthenticated connection that waited longest
      Ticket& oldest = *waiting_.front();
      unlist_locked(oldest);
      release_locked(oldest);
      oldest.evicted_ = true;
      close_evicted = std::move(oldest.close_);
      ++evicted_;
    }
    ++per_address_[address];
    ++per_prefix_[prefix];
    ++open_;
    const bool probation = unauthenticated_ >= caps_.unauthenticated;
    ++unauthenticated_;
    ticket = std::make_unique<Ticket>(shared_from_this(), std::move(address), std::move(prefix), probation);
    list_locked(*ticket);
  }
  if (close_evicted) close_evicted();  // outside the lock: it posts to the connection's own thread
  return ticket;
}

void ConnectionLimit::release_locked(Ticket& t) {
  unlist_locked(t);
  --open_;
  decrement(per_address_, t.address_);
  decrement(per_prefix_, t.prefix_);
  if (t.authenticated_) decrement(per_tenant_, t.tenant_);
  else --unauthenticated_;
}

void ConnectionLimit::list_locked(Ticket& t) {
  if (t.listed_) return;
  t.in_waiting_ = waiting_.insert(waiting_.end(), &t);
  t.listed_ = true;
}

void ConnectionLimit::unlist_locked(Ticket& t) {
  if (!t.listed_) return;
  waiting_.erase(t.in_waiting_);
  t.listed_ = false;
}

size_t ConnectionLimit::open() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return open_;
}

size_t ConnectionLimit::refused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refused_;
}

size_t ConnectionLimit::evicted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return evicted_;
}

}  // namespace fleetmcp::http
