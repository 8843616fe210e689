// Compact mode (docs/protocol.md §7, for large fleets): instead of one tool per node capability, tools/list
// offers three fleet tools, so a model's context does not fill with thousands of near-identical
// tools (docs/platform-notes.md §H6.2):
//   fleet_find_nodes      the caller's nodes, filtered by kind and state, paginated
//   fleet_describe_node   one node's capabilities: tool names, descriptions, schemas, scopes
//   fleet_call            call capability cap_id's verb on node_id with arguments
// fleet_call goes through exactly the same gate as calling the projected tool by name, which
// tools/call keeps accepting in compact mode. Nodes are always the caller's tenant's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/http/surface/per_node_tools.h"
#include "broker_plugin/http/surface/tool_surface.h"

namespace fleetmcp::http {

inline constexpr std::string_view kFindNodesTool = "fleet_find_nodes";
inline constexpr std::string_view kDescribeNodeTool = "fleet_describe_node";
inline constexpr std::string_view kFleetCallTool = "fleet_call";

// A constant JSON text (a server schema) parsed into `a`.
json::Value parse_constant(std::string_view text, json::Allocator& a);
// The entry of `caps` (an array) for t's capability: {cap_id, kind, safety_class, constraints,
// verbs: []}, appended when missing. Shared by fleet_describe_node and the manifest resource.
json::Value& capability_entry(json::Value& caps, const FleetTool& t, json::Allocator& a);

// The kinds of the tenant's capabilities, sorted: the `kind` enum of fleet_find_nodes, and what a
// kind no node has is answered with. They come from the tenant's verified, unexpired manifests,
// like the tools themselves: a node going offline changes none, an expiry can.
std::vector<std::string> tenant_kinds(const FleetSnapshot& fleet, std::string_view tenant);
// The refusal of a `kind` argument none of `present` (tenant_kinds) is, by fleet_find_nodes and
// fleet_read: E_INVALID_ARGUMENTS at /kind, listing the kinds present and suggesting the nearest,
// instead of an empty answer the model would read as "no node has it".
ErrorEnvelope unknown_kind(std::string_view kind, const std::vector<std::string>& present);

class CompactTools final : public ToolSurface {
 public:
  explicit CompactTools(const PerNodeTools& per_node) : per_node_(per_node) {}

  // The three fleet tools, whatever the cursor.
  Result<json::Document> list(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* cursor,
                              McpRevision revision) const override;
  std::string instructions() const override;
  std::string call_name(const FleetTool&) const override { return std::string(kFleetCallTool); }
  // The fleet_find_nodes tool object (by_kind mode lists it too): its `kind` is an enum of `kinds`
  // (tenant_kinds; none when the tenant has no capability).
  static json::Value find_nodes_tool(const std::vector<std::string>& kinds, McpRevision revision, json::Allocator& alloc);
  // The list is three fixed tools, but fleet_find_nodes' kind enum is the tenant's kinds: it
  // changes with them.
  std::string digest(const FleetSnapshot& fleet, std::string_view tenant) const override;

  // CallToolResult documents.
  // now_ms: the wall clock expiring_within_s counts from.
  json::Document find_nodes(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* args, int64_t now_ms,
                            McpRevision revision) const;
  json::Document describe_node(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* args,
                               McpRevision revision) const;

 private:
  const PerNodeTools& per_node_;
};

// fleet_call: the per-node tool it names and its arguments (at "/arguments"); a refusal of kind
// kMalformedFleetCall when its own arguments are wrong, an unknown tool "node/cap/verb" when the
// tenant has no such tool.
Result<ResolvedCall, CallRefusal> resolve_fleet_call(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* args);

}  // namespace fleetmcp::http
