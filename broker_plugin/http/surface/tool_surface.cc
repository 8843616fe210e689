#include "broker_plugin/http/surface/tool_surface.h"

#include "broker_plugin/http/surface/compact_tools.h"
#include "broker_plugin/http/surface/fleet_read.h"
#include "broker_plugin/http/surface/kind_tools.h"

namespace fleetmcp::http {

Result<ResolvedCall, CallRefusal> ToolSurface::resolve_projected(const FleetSnapshot& fleet, std::string_view tenant,
                                                                 std::string_view name, const json::Value* arguments) {
  const auto split = split_tool_name(name);
  if (const FleetTool* tool = split ? fleet.find_tool(tenant, *split) : nullptr) {
    return ResolvedCall{ResolvedCall::Action::kCall, tool, arguments, {}, {}};
  }
  return unknown_tool(name);
}

Result<ResolvedCall, CallRefusal> ToolSurface::resolve(const FleetSnapshot& fleet, std::string_view tenant, std::string_view name,
                                                       const json::Value* arguments) {
  using Action = ResolvedCall::Action;
  if (name == kFindNodesTool) return ResolvedCall{Action::kFindNodes, nullptr, arguments, {}, {}};
  if (name == kDescribeNodeTool) return ResolvedCall{Action::kDescribeNode, nullptr, arguments, {}, {}};
  if (name == kFleetReadTool) {
    auto plan = plan_fleet_read(fleet, tenant, arguments);
    // Audited under fleet_read's name; a structured result, as fleet_read lists an outputSchema.
    if (!plan) return CallRefusal{RefusalKind::kExecution, std::move(plan).error(), nullptr, std::string(kFleetReadTool), {}, {}};
    return ResolvedCall{Action::kFleetRead, nullptr, arguments, {}, std::move(*plan)};
  }
  if (name == kFleetCallTool) return resolve_fleet_call(fleet, tenant, arguments);
  // No dot and no dash: a by_kind name (system_echo_invoke), which a per-node name never is.
  if (name.find_first_of(".-") == std::string_view::npos) return resolve_kind_call(fleet, tenant, name, arguments);
  return resolve_projected(fleet, tenant, name, arguments);
}

}  // namespace fleetmcp::http
