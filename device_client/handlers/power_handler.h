// system.power (Doc 05 §3.3 system.reboot, §3.4 system.shutdown): disabled unless configured. The
// capability exists only when device.conf has a line for it, and that line must name its action
// (`capability.reboot = system.power action=reboot`); shutdown additionally needs
// allow_shutdown=true, because a powered-off Pi needs someone on site to come back.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "device_client/backends/power_control.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kPowerKind = "system.power";

class PowerHandler : public ToolHandler {
 public:
  PowerHandler(std::unique_ptr<PowerControl> control, std::string action, std::string node_id)
      : ToolHandler(SafetyClass::kPhysicalActuation, {"invoke"}),
        control_(std::move(control)), action_(std::move(action)), node_id_(std::move(node_id)) {}

  Result<json::Document> run(const ToolCall& call) override;

 private:
  const std::unique_ptr<PowerControl> control_;
  const std::string action_, node_id_;
};

}  // namespace fleetmcp::device
