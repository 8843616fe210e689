#include "device_client/commands/plugin_clock.h"

#include <algorithm>

namespace fleetmcp::device {

std::optional<int64_t> PluginClock::bound_at(int64_t mono_ms) const {
  if (!bound_) return std::nullopt;
  const int64_t age_ms = std::max<int64_t>(0, mono_ms - bound_mono_ms_);
  if (age_ms > kMaxSampleAgeMs) return std::nullopt;
  return *bound_ + (age_ms * kDriftPpm + 999'999) / 1'000'000;  // rounded up: looser, never tighter
}

void PluginClock::observe(int64_t plugin_ms, int64_t mono_ms) {
  const int64_t sample = mono_ms - plugin_ms;
  const auto current = bound_at(mono_ms);
  if (current && *current < sample) return;
  bound_ = sample;
  bound_mono_ms_ = mono_ms;
}

int64_t PluginClock::earliest_now(int64_t mono_ms, int64_t wall_ms) const {
  const int64_t by_wall_clock = wall_ms - kWallClockAllowanceMs;
  const auto bound = bound_at(mono_ms);
  return bound ? std::max(by_wall_clock, mono_ms - *bound) : by_wall_clock;
}

}  // namespace fleetmcp::device
