#include "device_client/session/telemetry_cadence.h"

#include "device_client/host/metrics_sample.h"

namespace fleetmcp::device {

int64_t TelemetryCadence::lease(int64_t interval_ms, unsigned parts, int64_t now_ms, int64_t lease_ms) {
  std::lock_guard lock(mutex_);
  lease_interval_ms_ = interval_ms;
  lease_parts_ = parts;
  lease_expires_at_ms_ = now_ms + lease_ms;
  return lease_expires_at_ms_;
}

TelemetryCadence::Current TelemetryCadence::current(int64_t now_ms) const {
  std::lock_guard lock(mutex_);
  if (now_ms < lease_expires_at_ms_) return {lease_interval_ms_, lease_parts_};
  return {base_interval_ms_, kPartAll};
}

int64_t TelemetryCadence::lease_remaining_ms(int64_t now_ms) const {
  std::lock_guard lock(mutex_);
  return now_ms < lease_expires_at_ms_ ? lease_expires_at_ms_ - now_ms : 0;
}

}  // namespace fleetmcp::device
