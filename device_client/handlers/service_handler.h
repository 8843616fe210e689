// service.unit (Doc 05 service.get_status / control_service / set_enabled): one allow-listed
// systemd unit per capability (`unit=nginx.service`). reversible: every action has an inverse.
// Stopping or disabling the unit is refused while active services depend on it (Doc 05 addendum
// §6.1: failed_precondition naming them, common/protocol/cmd_ack.h dependents_message) unless the
// call carries force=true and confirm_breaking_dependencies=true; the plugin asks such a call for
// tools:call:physical_actuation and a confirmation (docs/protocol.md §7).
#pragma once

#include <memory>
#include <mutex>
#include <string_view>

#include "device_client/backends/service_control.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kServiceKind = "service.unit";

class ServiceHandler : public ToolHandler {
 public:
  explicit ServiceHandler(std::unique_ptr<ServiceControl> unit) : ToolHandler(SafetyClass::kReversible, {"get", "invoke", "set"}), unit_(std::move(unit)) {}

  Result<json::Document> run(const ToolCall& call) override;

 private:
  std::mutex mutex_;
  const std::unique_ptr<ServiceControl> unit_;
};

// The Doc 05 addendum §6.1 refusal when `call` stops (invoke stop) or disables (set enabled=false)
// a unit that running services depend on, unless it carries the override; invalid_argument for
// force without confirm_breaking_dependencies.
Status refuse_breaking_dependents(ServiceControl& unit, const ToolCall& call);

// The service.unit.get.output object for a status (exposed for the unit tests).
json::Document service_status_json(const ServiceStatus& s);

}  // namespace fleetmcp::device
