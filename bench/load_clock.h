// The load generator's clocks, in milliseconds as doubles: steady for latencies and gaps, wall
// (Unix) for comparing with a device's ts_ms on the same machine.
#pragma once

#include <chrono>

namespace fleetmcp::bench {

inline double steady_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace fleetmcp::bench
