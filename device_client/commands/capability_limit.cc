#include "device_client/commands/capability_limit.h"

#include <algorithm>

namespace fleetmcp::device {

CapabilityLimit::Admission CapabilityLimit::try_acquire(int64_t deadline_ms, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  if (static_cast<int>(deadlines_.size()) < max_) {
    deadlines_.insert(deadline_ms);
    return {true, 0};
  }
  const int64_t earliest = *deadlines_.begin();
  return {false, std::max<int64_t>(10, earliest - now_ms)};
}

void CapabilityLimit::release(int64_t deadline_ms) {
  std::lock_guard lock(mutex_);
  const auto it = deadlines_.find(deadline_ms);
  if (it != deadlines_.end()) deadlines_.erase(it);
}

int CapabilityLimit::in_use() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(deadlines_.size());
}

}  // namespace fleetmcp::device
