#include "common/base/refusal_throttle.h"

namespace fleetmcp {

std::optional<uint64_t> RefusalThrottle::admit(const std::string& key, int64_t now_ms) {
  if (interval_ms_ <= 0) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  if (slots_.size() >= kMaxKeys && !slots_.contains(key)) slots_.clear();
  Slot& slot = slots_[key];
  if (now_ms < slot.next_line_ms) {
    ++slot.unwritten;
    return std::nullopt;
  }
  slot.next_line_ms = now_ms + interval_ms_;
  return std::exchange(slot.unwritten, 0);
}

}  // namespace fleetmcp
