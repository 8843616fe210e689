#include "broker_plugin/http/calls/actuation_check.h"

#include <string>

#include "broker_plugin/http/surface/kind_tools.h"
#include "common/protocol/cmd_ack.h"

namespace fleetmcp::http {
namespace {

// The one check so far: gpio.pin set drives an output, so the pin must be configured as one.
bool drives_a_pin(const FleetTool& tool) { return tool.kind == "gpio.pin" && tool.name.verb == "set"; }

// The tool of the same node and capability as `acting` with verb `verb`, or null.
const FleetTool* sibling(const FleetSnapshot& fleet, std::string_view tenant, const FleetTool& acting,
                         std::string_view verb) {
  const FleetNode* node = fleet.node(tenant, acting.name.node_id);
  if (node == nullptr) return nullptr;
  for (const FleetTool& t : node->tools) {
    if (t.name.cap_id == acting.name.cap_id && t.name.verb == verb) return &t;
  }
  return nullptr;
}

}  // namespace

const FleetTool* read_before(const FleetSnapshot& fleet, std::string_view tenant, const FleetTool& acting) {
  return drives_a_pin(acting) ? sibling(fleet, tenant, acting, "get") : nullptr;
}

Status allowed_by_state(const FleetSnapshot& fleet, std::string_view tenant, const FleetTool& acting,
                        const json::Value& state) {
  if (!drives_a_pin(acting) || !state.IsObject()) return {};
  // The device's result has passed gpio.pin.state's output schema: mode is one of its enum, pin
  // an integer.
  const auto mode = json::get_string(state, "mode");
  if (!mode || *mode == "output") return {};
  const auto pin = json::get_int64(state, "pin");
  const std::string which = pin ? "pin " + std::to_string(*pin) : "the pin";
  // The by_kind name the configuring verb is listed under (gpio_pin_set_mode).
  const FleetTool* invoke = sibling(fleet, tenant, acting, "invoke");
  const std::string configure = (invoke != nullptr ? kind_tool_name(*invoke) : kind_tool_name(acting.kind, "invoke")) +
                                " {\"node_id\":\"" + acting.name.node_id +
                                "\",\"cap_id\":\"" + acting.name.cap_id + "\",\"arguments\":{\"mode\":\"output\"}}";
  ErrorEnvelope e(ErrorCode::kBadRequest,
                  which + " (capability " + acting.name.cap_id + ") is configured as " +
                      (*mode == "input" ? std::string("an input") : "mode " + std::string(*mode)) +
                      ", so it cannot be driven; nothing was sent and nobody was asked to confirm",
                  "configure it as an output first with " + configure + ", then repeat this call");
  e.reason = device_reason_name(DeviceReason::kFailedPrecondition);
  return e;
}

}  // namespace fleetmcp::http
