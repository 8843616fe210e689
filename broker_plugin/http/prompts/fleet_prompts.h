// MCP prompts for fleet workflows (issue 37 item 9): prompts/list and prompts/get. Each prompt is
// a user message that tells the model which tools to call and in which order, for the caller's
// tenant's nodes as the fleet snapshot shows them:
//   diagnose_node        (node_id)              the node's read-only tools, health first
//   fleet_health_report  (kind, optional)       fleet_find_nodes, then fleet_read of the kind
//   safe_actuation       (node_id, cap_id, state) read, ask the user, act, read back, compare
// Tool names come from the configured ToolSurface (ToolSurface::call_name), never from strings
// here: a renamed tool is named as it is served. A node of another tenant is unknown, exactly
// like a node that does not exist.
#pragma once

#include <string_view>

#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/surface/tool_surface.h"
#include "common/base/json.h"
#include "common/base/result.h"

namespace fleetmcp::http {

class FleetPrompts {
 public:
  explicit FleetPrompts(const ToolSurface& tools) : tools_(tools) {}

  // The prompts/list result {prompts}: the same three prompts for everyone (no paging needed).
  json::Document list_result() const;
  // The prompts/get result {description, messages} for `params` {name, arguments}. The error's
  // message completes "Invalid params: …" (JSON-RPC -32602): an unknown prompt, a missing
  // argument, a node, capability or kind the tenant does not have, naming what it does have.
  Result<json::Document> get_result(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* params) const;

  // Whether `name` is one of the prompts (completion/complete of its arguments).
  static bool exists(std::string_view name);

 private:
  const ToolSurface& tools_;
};

}  // namespace fleetmcp::http
