// The Doc 05 catalogue a --simulate --catalogue node offers (docs/catalogue.md, "Simulated
// fleet"): one capability of every kind, on simulated backends, written as device.conf lines so
// they go through exactly the parser an operator's file does.
#pragma once

#include <vector>

#include "device_client/config/device_config.h"

namespace fleetmcp::device {

// The capability lines, "capability.gpio17 = gpio.pin line=17" etc.
const std::vector<std::pair<std::string, std::string>>& simulated_catalogue_lines();
// Adds every catalogue capability whose cap_id the node's own file does not already use.
void add_simulated_catalogue(DeviceConfig& config);

}  // namespace fleetmcp::device
