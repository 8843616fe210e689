// service.unit (Doc 05 service.get_status / control_service / set_enabled): one allow-listed
// systemd unit per capability (`unit=nginx.service`). reversible: every action has an inverse.
#pragma once

#include <memory>
#include <mutex>
#include <string_view>

#include "device_client/backends/service_control.h"
#include "device_client/commands/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kServiceKind = "service.unit";

class ServiceHandler : public ToolHandler {
 public:
  explicit ServiceHandler(std::unique_ptr<ServiceControl> unit) : ToolHandler(SafetyClass::kReversible, {"get", "invoke", "set"}), unit_(std::move(unit)) {}

  json::Document run(const ToolCall& call) override;

 private:
  std::mutex mutex_;
  const std::unique_ptr<ServiceControl> unit_;
};

// The service.unit.get.output object for a status (exposed for the unit tests).
json::Document service_status_json(const ServiceStatus& s);

}  // namespace fleetmcp::device
