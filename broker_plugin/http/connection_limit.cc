#include "broker_plugin/http/connection_limit.h"

namespace fleetmcp::http {

std::unique_ptr<ConnectionLimit::Ticket> ConnectionLimit::admit(const std::string& address) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t& mine = per_address_[address];
    if (open_ >= max_total_ || mine >= max_per_address_) {
      if (mine == 0) per_address_.erase(address);
      ++refused_;
      return nullptr;
    }
    ++mine;
    ++open_;
  }
  return std::make_unique<Ticket>(shared_from_this(), address);
}

void ConnectionLimit::release(const std::string& address) {
  std::lock_guard<std::mutex> lock(mutex_);
  --open_;
  const auto it = per_address_.find(address);
  if (it != per_address_.end() && --it->second == 0) per_address_.erase(it);
}

size_t ConnectionLimit::open() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return open_;
}

size_t ConnectionLimit::refused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refused_;
}

}  // namespace fleetmcp::http
