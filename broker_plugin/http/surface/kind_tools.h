// The by_kind tools mode (issue 14 part 1): a typed tool surface whose size does not grow with the
// fleet. tools/list offers one tool per (kind, verb) present among the caller's tenant's verified
// manifests, named `{kind with '_' for '.'}_{action}` by what the verb does on the kind (the
// registry's action: gpio_pin_set_mode, manage_server_update, system_metrics_snapshot; no dots, so
// OpenAI-style name rules accept them; the older `{kind}_{verb}` names still call), plus the discovery tool fleet_find_nodes and the fleet-wide
// read fleet_read (fleet_read.h). A by_kind tool takes
//   node_id    which node: an enum of the tenant's matching nodes while there are at most
//              kNodeEnumMax of them, else the ULID pattern (find them with fleet_find_nodes)
//   cap_id     which capability of that kind on the node; only present when the tenant's nodes have
//              several cap_ids of the kind (an enum of them), optional when the node has one
//   arguments  the registry's input schema of the verb, exactly as the per-node tool has it
// Its outputSchema is the registry's output schema; its annotations and x-safety-class are the
// per-node tool's (the most cautious class when nodes declare the kind differently).
//
// A call resolves to the per-node tool (resolve_kind_call) and then goes through the same CallGate as
// any other call; the node's own safety class, scope, rate limit and two-phase rule apply.
// Arguments are checked here first, so a wrong one is E_INVALID_ARGUMENTS naming its JSON pointer
// (/node_id, /cap_id, /arguments/message) before any device round trip; a node_id of no node of
// the tenant with the tool is E_MANIFEST_NOT_FOUND (docs/protocol.md §9). A node of another tenant
// gets exactly the answer of a node that does not exist.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "broker_plugin/http/surface/per_node_tools.h"
#include "broker_plugin/http/surface/tool_surface.h"

namespace fleetmcp::http {

// Up to this many matching nodes, a tool's node_id is an enum of them (no discovery round trip).
inline constexpr size_t kNodeEnumMax = 16;
// Up to this many distinct cap_ids of a kind, cap_id is an enum of them.
inline constexpr size_t kCapEnumMax = 32;

class KindTools final : public ToolSurface {
 public:
  explicit KindTools(const PerNodeTools& per_node) : per_node_(per_node) {}

  // The by_kind tools of the tenant in name order, then fleet_find_nodes and fleet_read, in pages of
  // the per_node page size (one page with the default of 100: a few dozen tools at most). A cursor
  // names the last tool of its page; E_BAD_REQUEST when it is not one this list issued.
  Result<json::Document> list(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* cursor,
                              McpRevision revision) const override;
  // Changes exactly when list would (the (kind, verb) set, classes, cap_id and node enums).
  std::string digest(const FleetSnapshot& fleet, std::string_view tenant) const override;
  std::string instructions() const override;
  std::string call_name(const FleetTool& tool) const override;

  struct Group;                                // kind_tools.cc
  using Groups = std::map<std::string, Group>;  // by by_kind name

 private:
  // The tenant's tools grouped by (kind, verb) once per fleet snapshot, not per list: a snapshot
  // is immutable and its generation names it (one FleetView's generations only grow), so the
  // last grouping per tenant is kept under that generation. Any thread.
  std::shared_ptr<const Groups> groups(const FleetSnapshot& fleet, std::string_view tenant) const;

  struct Cached {
    uint64_t generation = 0;
    std::shared_ptr<const Groups> groups;
  };
  const PerNodeTools& per_node_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Cached, std::less<>> cache_;
};

// The per-node tool a by_kind call means and where its arguments are, or E_INVALID_ARGUMENTS naming
// the argument (an execution refusal). A name no node of the tenant offers is an unknown tool.
Result<ResolvedCall, CallRefusal> resolve_kind_call(const FleetSnapshot& fleet, std::string_view tenant, std::string_view name,
                                                    const json::Value* args);

// "gpio.pin", "set_mode" → "gpio_pin_set_mode".
std::string kind_tool_name(std::string_view kind, std::string_view action);
// The name tools/list gives a by_kind tool: its kind and the registry's action for its verb.
std::string kind_tool_name(const FleetTool& t);
// `name` calls t's by_kind tool: the listed name, or the name before kinds@1.8.0 named tools by
// action ({kind}_{verb}, gpio_pin_invoke), which calls keep accepting (docs/agents.md).
bool is_kind_tool_name(const FleetTool& t, std::string_view name);

}  // namespace fleetmcp::http
