// system.power's backends: logind's ScheduleShutdown over D-Bus on a device, a recorder on
// --simulate nodes (which must never take the test machine down).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "common/base/result.h"

namespace fleetmcp::device {

class PowerControl {
 public:
  virtual ~PowerControl() = default;
  // action "reboot" or "shutdown"; effective after delay_seconds.
  virtual Status schedule(std::string_view action, int64_t delay_seconds) = 0;
};

std::unique_ptr<PowerControl> make_simulated_power();
std::unique_ptr<PowerControl> make_logind_power();

}  // namespace fleetmcp::device
