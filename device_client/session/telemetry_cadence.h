// How often a node publishes telemetry (docs/protocol.md §4): at its configured base interval, or at the
// interval of a subscribe lease while one is live. The plugin renews the lease while it has
// subscribers; the latest lease wins, and an expired one falls back to the base interval.
#pragma once

#include <cstdint>
#include <mutex>

namespace fleetmcp::device {

inline constexpr int64_t kTelemetryLeaseMs = 30'000;

class TelemetryCadence {
 public:
  explicit TelemetryCadence(int64_t base_interval_ms) : base_interval_ms_(base_interval_ms) {}

  struct Current {
    int64_t interval_ms;
    unsigned parts;  // MetricsPart bits of the lease's `include`, or all of them
  };

  // Starts or renews the lease; returns when it expires.
  int64_t lease(int64_t interval_ms, unsigned parts, int64_t now_ms, int64_t lease_ms = kTelemetryLeaseMs);
  Current current(int64_t now_ms) const;
  // Milliseconds until the lease ends (0 when there is none), so a tick can be cut short and the
  // base cadence resumes on time.
  int64_t lease_remaining_ms(int64_t now_ms) const;

 private:
  const int64_t base_interval_ms_;
  mutable std::mutex mutex_;
  int64_t lease_interval_ms_ = 0, lease_expires_at_ms_ = 0;
  unsigned lease_parts_ = 0;
};

}  // namespace fleetmcp::device
