#include "device_client/commands/idempotency_cache.h"

namespace fleetmcp::device {

IdempotencyCache::Lookup IdempotencyCache::begin(std::string_view msg_id, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  evict(now_ms);
  const auto it = entries_.find(msg_id);
  if (it == entries_.end()) {
    entries_.emplace(std::string(msg_id), Entry{});
    return {Seen::kNew, {}};
  }
  if (!it->second.done) {
    ++it->second.duplicates;
    return {Seen::kInFlight, {}};
  }
  return {Seen::kDone, it->second.ack};
}

int IdempotencyCache::complete(std::string_view msg_id, std::string ack, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(msg_id);
  if (it == entries_.end()) return 0;
  it->second.done = true;
  it->second.ack = std::move(ack);
  it->second.stored_at_ms = now_ms;
  order_.emplace_back(now_ms, std::string(msg_id));
  const int duplicates = it->second.duplicates;
  evict(now_ms);
  return duplicates;
}

int IdempotencyCache::forget(std::string_view msg_id) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(msg_id);
  if (it == entries_.end()) return 0;
  const int duplicates = it->second.duplicates;
  entries_.erase(it);
  return duplicates;
}

size_t IdempotencyCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

// Only completed entries are in order_, so a running call is never evicted (it must stay
// known, or a duplicate would run it twice).
void IdempotencyCache::evict(int64_t now_ms) {
  while (!order_.empty() &&
         (order_.size() > max_entries_ || now_ms - order_.front().first >= ttl_ms_)) {
    const auto it = entries_.find(order_.front().second);
    if (it != entries_.end() && it->second.done && it->second.stored_at_ms == order_.front().first) {
      entries_.erase(it);
    }
    order_.pop_front();
  }
}

}  // namespace fleetmcp::device
