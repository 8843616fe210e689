// fleet_read (issue 14 part 2): one tool call that runs a read-only capability on many nodes of
// the caller's tenant and answers with every node's result or error in one structured result:
// "health of every node", "which nodes run nginx" (service_unit_get with cap_id nginx).
//
// Which nodes: node_ids (at most kFleetReadMax), or every node of the tenant with a capability of
// `kind` that is online (state "online", the default) or in any state ("any": offline nodes then
// answer E_NODE_OFFLINE without a device round trip). At most `limit` (<= kFleetReadMax) nodes, in
// node_id order; `truncated` says there were more. Each node's call goes through the CallGate like
// any other call: scope, argument validation, the node's rate and concurrency limits (a limited
// node answers E_RATE_LIMITED with retry_after_ms, the others still run) and the gateway deadline;
// arguments the gate refuses at the first node are refused once for the whole call (below).
// Only capabilities whose verb only reads (tool annotations readOnlyHint) are accepted, and no
// stream (system.metrics subscribe).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/base/mcp_revision.h"
#include "common/base/json.h"
#include "common/base/result.h"

namespace fleetmcp::http {

inline constexpr std::string_view kFleetReadTool = "fleet_read";
inline constexpr size_t kFleetReadMax = 100;

// The tool object tools/list shows (by_kind mode).
json::Value fleet_read_tool(McpRevision revision, json::Allocator& alloc);

struct FleetReadTarget {
  std::string node_id;
  const FleetTool* tool = nullptr;  // the per-node tool, in the snapshot planned over; null when there is no single one
  std::string problem;              // why, when tool is null
};

// How the answer is shaped (issue 37 item 8), so "the hottest node" is one small answer: `fields`
// keeps only those parts of each result (JSON pointers, answered as `values` {pointer: value or
// null}); `sort_by` orders the nodes by the value at a pointer (numbers, else strings; nodes
// without one, errors included, after the others in node_id order); `top` keeps the first ones.
struct FleetReadShape {
  std::vector<std::string> fields;  // empty: the whole result
  std::string sort_by;              // empty: node_id order
  bool ascending = false;           // `order`: desc (highest first) unless "asc"
  size_t top = 0;                   // 0: every node read
};

struct FleetReadPlan {
  std::vector<FleetReadTarget> targets;  // node_id order
  // The same arguments for every node: the `arguments` member of the call's own (null: {}), valid
  // while they are; parsed once with the request, validated by the gate (a refusal at the first
  // node is the whole call's: fleet_read_arguments_refused).
  const json::Value* arguments = nullptr;
  size_t matched = 0;                    // before `limit`
  FleetReadShape shape;
};

// Checks the arguments and picks the nodes and each one's tool (the plan points into `args`):
// fleet_read's part of the one resolution of a tools/call (ToolSurface::resolve), which hands the
// plan on. An error envelope (E_INVALID_ARGUMENTS naming the argument, E_SAFETY_DENIED for a
// capability that does more than read) when they are wrong.
Result<FleetReadPlan> plan_fleet_read(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* args);

// The one refusal of a fleet_read whose `arguments` the gate refused (`gate_error`, naming them at
// /arguments/…) at its first node with the capability (`tool`): every node gets the same
// arguments and the kind has one input schema, so every node would refuse them. Its
// suggested_fix names the by_kind tool whose `arguments` schema they must match.
ErrorEnvelope fleet_read_arguments_refused(const FleetTool& tool, const ErrorEnvelope& gate_error);

// Collects the per-node answers of one fleet_read, in the plan's order.
class FleetReadResults {
 public:
  explicit FleetReadResults(const FleetReadPlan& plan);
  void set_result(size_t index, std::string_view result_json);
  void set_error(size_t index, const ErrorEnvelope& error);
  // {"results":[{node_id, ok, result | values | error}], "matched", "ok_count", "error_count",
  // "truncated"}, shaped by the plan's FleetReadShape; the counts are over every node read, also
  // those `top` leaves out.
  json::Document document() const;

 private:
  struct Entry {
    std::string node_id;
    bool ok = false;
    std::string result_json;
    ErrorEnvelope error{ErrorCode::kInternal, "no answer", ""};
  };
  std::vector<Entry> entries_;
  size_t matched_ = 0;
  FleetReadShape shape_;
};

}  // namespace fleetmcp::http
