// Compact mode (docs/protocol.md §7, for large fleets): instead of one tool per node capability, tools/list
// offers three fleet tools, so a model's context does not fill with thousands of near-identical
// tools (docs/platform-notes.md §H6.2):
//   fleet_find_nodes      the caller's nodes, filtered by kind and state, paginated
//   fleet_describe_node   one node's capabilities: tool names, descriptions, schemas, scopes
//   fleet_call            call capability cap_id's verb on node_id with arguments
// fleet_call goes through exactly the same gate as calling the projected tool by name, which
// tools/call keeps accepting in compact mode. Nodes are always the caller's tenant's.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "broker_plugin/http/surface/tool_catalog.h"

namespace fleetmcp::http {

inline constexpr std::string_view kFindNodesTool = "fleet_find_nodes";
inline constexpr std::string_view kDescribeNodeTool = "fleet_describe_node";
inline constexpr std::string_view kFleetCallTool = "fleet_call";

// A constant JSON text (a server schema) parsed into `a`.
json::Value parse_constant(std::string_view text, json::Allocator& a);
// The entry of `caps` (an array) for t's capability: {cap_id, kind, safety_class, constraints,
// verbs: []}, appended when missing. Shared by fleet_describe_node and the manifest resource.
json::Value& capability_entry(json::Value& caps, const FleetTool& t, json::Allocator& a);

class CompactTools {
 public:
  explicit CompactTools(const ToolCatalog& catalog) : catalog_(catalog) {}

  static bool is_fleet_tool(std::string_view name);
  json::Document list_result(McpRevision revision) const;
  // The fleet_find_nodes tool object (by_kind mode lists it too).
  static json::Value find_nodes_tool(McpRevision revision, json::Allocator& alloc);

  // CallToolResult documents.
  json::Document find_nodes(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* args,
                            McpRevision revision) const;
  json::Document describe_node(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* args,
                               McpRevision revision) const;

  // fleet_call: the projected tool name and its arguments, or the CallToolResult of bad input.
  struct Target {
    std::string tool_name;
    const json::Value* arguments = nullptr;  // into args
    // Where `arguments` sit in what the client wrote ("/arguments"), so that the gate's
    // validation error names the argument as the client wrote it.
    std::string_view arguments_at;
  };
  std::variant<Target, json::Document> call_target(const FleetSnapshot& fleet, std::string_view tenant,
                                                   const json::Value* args, McpRevision revision) const;

 private:
  const ToolCatalog& catalog_;
};

}  // namespace fleetmcp::http
