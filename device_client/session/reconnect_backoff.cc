#include "device_client/session/reconnect_backoff.h"

#include <algorithm>

namespace fleetmcp::device {

ReconnectBackoff::ReconnectBackoff(int64_t min_ms, int64_t max_ms, uint64_t seed)
    : min_ms_(std::max<int64_t>(1, min_ms)), max_ms_(std::max(min_ms, max_ms)), random_(seed) {}

int64_t ReconnectBackoff::ceiling_ms() const {
  int64_t ceiling = min_ms_;
  for (int i = 0; i < attempt_ && ceiling < max_ms_; ++i) ceiling *= 2;
  return std::min(ceiling, max_ms_);
}

int64_t ReconnectBackoff::next_delay_ms() {
  std::uniform_int_distribution<int64_t> uniform(0, ceiling_ms());
  ++attempt_;
  return uniform(random_);
}

}  // namespace fleetmcp::device
