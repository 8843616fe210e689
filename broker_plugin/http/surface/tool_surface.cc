#include "broker_plugin/http/surface/tool_surface.h"

#include <set>
#include <string>
#include <vector>

#include "broker_plugin/http/surface/compact_tools.h"
#include "broker_plugin/http/surface/fleet_read.h"
#include "broker_plugin/http/surface/kind_tools.h"
#include "common/base/text.h"

namespace fleetmcp::http {
namespace {

// An unknown `name`, with the nearest names the tenant may call (text.h's nearest): the fleet
// tools, its tools' per-node names and their by_kind names. Only the tenant's own tools are
// candidates: another tenant's stay unseen.
CallRefusal unknown_near(const FleetSnapshot& fleet, std::string_view tenant, std::string_view name) {
  std::set<std::string> kind_names;
  std::vector<std::string_view> names = {kFindNodesTool, kDescribeNodeTool, kFleetReadTool, kFleetCallTool};
  for (const FleetTool* t : fleet.tools(tenant)) {
    kind_names.insert(kind_tool_name(*t));
    names.push_back(t->canonical_name);
  }
  names.insert(names.end(), kind_names.begin(), kind_names.end());
  return unknown_tool(name, nearest(name, names));
}

const FleetTool* projected_tool(const FleetSnapshot& fleet, std::string_view tenant, std::string_view name) {
  const auto split = split_tool_name(name);
  return split ? fleet.find_tool(tenant, *split) : nullptr;
}

}  // namespace

void keep_callable(json::Document& page, const AgentToken& agent) {
  const auto found = page.FindMember("tools");
  if (found == page.MemberEnd() || !found->value.IsArray()) return;
  json::Value* tools = &found->value;
  for (auto it = tools->Begin(); it != tools->End();) {
    const auto safety = json::get_string(*it, "x-safety-class");
    if (safety && !agent.has_scope("tools:call:" + std::string(*safety))) {
      it = tools->Erase(it);
    } else {
      ++it;
    }
  }
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
  // No dot and no dash: a by_kind name (system_echo_ping), which a per-node name never is.
  if (name.find_first_of(".-") == std::string_view::npos) {
    auto resolved = resolve_kind_call(fleet, tenant, name, arguments);
    if (!resolved && resolved.error().kind == RefusalKind::kUnknownTool) return unknown_near(fleet, tenant, name);
    return resolved;
  }
  if (const FleetTool* tool = projected_tool(fleet, tenant, name)) {
    return ResolvedCall{Action::kCall, tool, arguments, {}, {}};
  }
  return unknown_near(fleet, tenant, name);
}

}  // namespace fleetmcp::http
