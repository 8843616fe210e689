#include "broker_plugin/http/surface/tool_surface.h"

#include "broker_plugin/http/surface/compact_tools.h"
#include "broker_plugin/http/surface/fleet_read.h"
#include "broker_plugin/http/surface/kind_tools.h"

namespace fleetmcp::http {

const FleetTool* find_projected(const FleetSnapshot& fleet, std::string_view tenant, std::string_view name) {
  const auto split = split_tool_name(name);
  return split ? fleet.find_tool(tenant, *split) : nullptr;
}

Result<ResolvedCall, CallRefusal> ToolSurface::resolve(const FleetSnapshot& fleet, std::string_view tenant, std::string_view name,
                                                       const json::Value* arguments) {
  using Action = ResolvedCall::Action;
  if (name == kFindNodesTool) return ResolvedCall{Action::kFindNodes, nullptr, arguments, {}};
  if (name == kDescribeNodeTool) return ResolvedCall{Action::kDescribeNode, nullptr, arguments, {}};
  if (name == kFleetReadTool) return ResolvedCall{Action::kFleetRead, nullptr, arguments, {}};
  if (name == kFleetCallTool) return resolve_fleet_call(fleet, tenant, arguments);
  // No dot and no dash: a by_kind name (system_echo_invoke), which a per-node name never is.
  if (name.find_first_of(".-") == std::string_view::npos) return resolve_kind_call(fleet, tenant, name, arguments);
  if (const FleetTool* tool = find_projected(fleet, tenant, name)) return ResolvedCall{Action::kCall, tool, arguments, {}};
  return unknown_tool(name);
}

}  // namespace fleetmcp::http
