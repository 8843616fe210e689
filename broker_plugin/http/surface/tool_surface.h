// The tool surface an agent sees (docs/protocol.md §7): one interface, three modes behind it
// (plugin_opt_http_tools_mode):
//   per_node   one tool per capability × verb of every node (PerNodeTools, per_node_tools.h)
//   compact    fleet_find_nodes, fleet_describe_node, fleet_call (CompactTools, compact_tools.h)
//   by_kind    one tool per (kind, verb), plus fleet_find_nodes and fleet_read (KindTools, kind_tools.h)
// Only tools/list (and the digest list_changed compares) differs by mode. A tools/call name is
// resolved the same way in every mode, once, here: every name any mode lists stays callable in
// all of them, and the projected per-node names (dotted or dashed) always are. The resolved call
// names the per-node tool of the snapshot (fleet_read: each node's); the CallGate, the
// confirmation and the core take it from there without looking a name up or rebuilding it again.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "broker_plugin/http/base/call_refusal.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/base/mcp_revision.h"
#include "broker_plugin/http/surface/fleet_read.h"
#include "common/base/json.h"
#include "common/base/result.h"
#include "common/crypto/agent_token.h"

namespace fleetmcp::http {

// What a tools/call name means.
struct ResolvedCall {
  enum class Action {
    kCall,          // one per-node tool: through the CallGate to the node
    kFindNodes,     // fleet_find_nodes (CompactTools::find_nodes)
    kDescribeNode,  // fleet_describe_node (CompactTools::describe_node)
    kFleetRead,     // fleet_read (fleet_read.h): a read on many nodes
  };
  Action action = Action::kCall;
  const FleetTool* tool = nullptr;          // kCall: the per-node tool, in the snapshot resolve was given
  const json::Value* arguments = nullptr;   // kCall: the verb's arguments (null: none); else the tool's own
  // Where `arguments` sit in what the client wrote (a JSON pointer: "/arguments" for by_kind and
  // fleet_call, "" for a per-node name), so that a validation error names them as written.
  std::string_view arguments_at;
  // kFleetRead: the nodes and the per-node tool of each, resolved in the same snapshot.
  std::optional<FleetReadPlan> reads;
};

// How every mode's failures read (the end of each ToolSurface::instructions). tools/list shows
// only what the token may call (keep_callable), so the one failure that is not a result, the
// HTTP 403 of docs/protocol.md D15, meets only a name the list did not offer or a force=true.
inline constexpr std::string_view kFailureInstructions =
    "tools/list shows only the tools your token may call. Failures come back as results with isError and an "
    "error envelope {code, message, suggested_fix, retry_after_ms, details}: follow suggested_fix; "
    "details.reason, when present, says why a device refused. The exception: a call your token's scope does not "
    "cover (a tool not listed to you, or force=true without tools:call:physical_actuation) is refused with HTTP "
    "403 insufficient_scope, which MCP clients raise as an error.";

// Issue 37 item 7: leaves in a tools/list page only the tools `agent` may call. A tool's
// x-safety-class is its verb's class (verb_safety_class), whose scope tools:call:<class> the call
// needs; a tool without one (fleet_find_nodes, fleet_describe_node, fleet_call: their calls are
// checked per capability) always stays. The list is a function of the full list and the token,
// so list_changed for the full list covers it (list_changed.h); a page may hold fewer tools than
// the page size, and its nextCursor still names the last tool it covered.
void keep_callable(json::Document& page, const AgentToken& agent);

class ToolSurface {
 public:
  virtual ~ToolSurface() = default;

  // The tools/list result {tools, nextCursor?}. `cursor` is params.cursor as the client sent it
  // (null when absent); a cursor the mode cannot use is an error whose message completes
  // "Invalid params: …" (JSON-RPC -32602).
  virtual Result<json::Document> list(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* cursor,
                                      McpRevision revision) const = 0;
  // Changes exactly when list() would: what notifications/tools/list_changed compares.
  virtual std::string digest(const FleetSnapshot& fleet, std::string_view tenant) const = 0;
  // The `instructions` of the initialize result: how this mode's tools are named and used, in plain
  // words for the model, ending with kFailureInstructions.
  virtual std::string instructions() const = 0;
  // The name this mode lists for calls of `tool` (the prompts name tools by it, fleet_prompts.h):
  // by_kind its (kind, verb) tool, per_node its own name, compact fleet_call.
  virtual std::string call_name(const FleetTool& tool) const = 0;

  // What `name` means for the tenant, the same in every mode. A refusal says why not: an unknown
  // tool (another tenant's is indistinguishable from one that does not exist), or arguments of a
  // by_kind tool or of fleet_call that name no single tool.
  static Result<ResolvedCall, CallRefusal> resolve(const FleetSnapshot& fleet, std::string_view tenant, std::string_view name,
                                                   const json::Value* arguments);
};

}  // namespace fleetmcp::http
