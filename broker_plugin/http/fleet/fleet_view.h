// The HTTP front's only view of the plugin core (docs/protocol.md §7): what a tenant may see and call, a
// way to call it, and the telemetry of a node. The production implementation sits over the core's
// node registry and call table and hands every call to the broker thread (the HTTP front's threads
// never call mosquitto_*, docs/platform-notes.md §M3); the unit tests and the test host use an
// in-memory one.
//
// Threading contract for implementations:
//  - snapshot(), stats() and token_revoked() may be called from any thread at any time.
//  - call() and watch_telemetry() may be called from any thread; their callbacks may run on any
//    thread (the broker's), must not block, and are never run inside the call that registered them.
//  - The change listener runs on any thread after a new snapshot is visible through snapshot().
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker_plugin/http/fleet/persistent_map.h"
#include "common/base/error.h"
#include "common/registry/kinds.h"
#include "common/protocol/manifest.h"
#include "common/protocol/node_state.h"
#include "common/protocol/tool_call.h"

namespace fleetmcp::http {

// One MCP tool: a verb of a capability in a node's verified, unexpired manifest.
struct FleetTool {
  ToolName name;             // its four tokens; name.dotted() is the canonical name (D9)
  std::string kind;          // "system.echo"
  VerbSpec verb;             // input/output schema ids and description template (kinds.json)
  SafetyClass safety_class = SafetyClass::kReadOnly;  // the capability's, as its manifest declares
  CapabilityConstraints constraints;
  // name.dotted(), written once by the snapshot that stores the tool (FleetSnapshot::put): the
  // audit, the commit binding and the core's cmd take it from here instead of rebuilding it.
  std::string canonical_name;

  // The class of this verb (verb_safety_class, common/registry/kinds.h): what the tool is served
  // with (annotations, x-safety-class) and judged by (scope, confirmation).
  SafetyClass verb_class() const { return verb_safety_class(kind, safety_class, name.verb); }
};

struct FleetNode {
  std::string node_id, tenant;
  NodeState state = NodeState::kOffline;
  std::string manifest_etag;
  int64_t manifest_expires_at_ms = 0;
  int64_t state_since_ms = 0;  // when it entered `state` (the status it was last published with); 0: unknown
  // From its last verified manifest, also once stale (manifest@1.4.0; "" and empty when it has none).
  std::string hostname;
  std::vector<std::string> labels;
  // Each cap_id's label, for the capabilities in `tools` that have one (cap_id order).
  std::map<std::string, std::string, std::less<>> cap_labels;
  // Empty unless the manifest is verified and unexpired and the node not revoked. Offline nodes
  // keep their tools: calls to them fail fast with E_NODE_OFFLINE.
  std::vector<FleetTool> tools;
};

// An immutable picture of the fleet. Implementations make a new one whenever something that a
// tools/list could show changes, and swap it in; readers keep the one they started with.
//
// A snapshot is built from the one before it: next() puts in the nodes that changed and takes
// out those that left, sharing everything else (persistent maps, persistent_map.h), so one
// node's change costs O(its tools × log N), not a rebuild of the fleet, and the snapshot it
// came from stays valid and unchanged for whoever still reads it.
class FleetSnapshot {
 public:
  // The tenant's tools by dotted name: the stable order tools/list pages through.
  using ToolIndex = PersistentMap<std::string_view, const FleetTool*>;

  // A full build (the test host, tests, and the first snapshot of a view).
  FleetSnapshot(uint64_t generation, std::vector<FleetNode> nodes);
  // This snapshot with `changed` put in (each replaces the node of the same node_id, whatever its
  // tenant was) and the nodes of `removed` taken out; the same result as a full build of the
  // resulting fleet.
  std::shared_ptr<const FleetSnapshot> next(uint64_t generation, std::vector<FleetNode> changed,
                                            const std::vector<std::string>& removed) const;

  uint64_t generation() const { return generation_; }
  const ToolIndex& tools(std::string_view tenant) const;
  // nullptr when the tool does not exist for this tenant (another tenant's tool included).
  const FleetTool* find_tool(std::string_view tenant, const ToolNameView& name) const;
  const FleetTool* find_tool(std::string_view tenant, const ToolName& name) const { return find_tool(tenant, name.view()); }
  // `held`, a tool of an earlier snapshot of this fleet, as this one has it: the tool of the same
  // node of the tenant with the same canonical name (what a commit token binds), or nullptr when it
  // has gone. A confirmation re-checks its tool with this after the user answers: no name is parsed
  // or looked up, and a node that did not change is the same object, so `held` itself is found.
  const FleetTool* same_tool(std::string_view tenant, const FleetTool& held) const;
  const FleetNode* node(std::string_view tenant, std::string_view node_id) const;
  // The tenant's nodes ordered by node_id.
  std::vector<const FleetNode*> nodes(std::string_view tenant) const;
  size_t node_count() const { return nodes_.size(); }
  std::vector<std::string> tenants() const;
  // Every node counted by state, all four states present ("online" → 3 …), ordered by name.
  std::map<std::string_view, uint64_t> count_by_state() const;
  // Online nodes whose tools are served: connected with a verified, unexpired manifest. A node is
  // online from its CONNECT, before its announce is verified, so this, not `online`, says when
  // its tools can be called.
  uint64_t count_serving() const { return serving_; }
  // Changes whenever anything tools/list shows for the tenant changes (names, schemas, classes);
  // the front compares it across snapshots to send notifications/tools/list_changed.
  std::string tools_digest(std::string_view tenant) const;

 private:
  using Lanes = std::array<uint64_t, 4>;
  // A node as stored: what the indexes need of it is computed once, when it comes in. The
  // indexes' keys are views of these strings, alive as long as the node is in the snapshot.
  struct StoredNode {
    FleetNode node;  // each tool's canonical_name set: the tool index's keys
    std::vector<Lanes> listing_hashes;    // what tools/list shows of node.tools[i], hashed
  };
  using NodeIndex = PersistentMap<std::string_view, std::shared_ptr<const StoredNode>>;
  // A digest of a set of tool listings that a change updates without visiting the rest: the
  // count and the lane-wise sum (mod 2^64) of each listing's BLAKE3. Order-free, which is right
  // here: the listing order is the names' order, and the names are part of what is hashed.
  struct ListingDigest {
    uint64_t count = 0;
    Lanes sum{};
    void add(const Lanes& listing);
    void remove(const Lanes& listing);
    std::string hex() const;
  };
  struct TenantIndex {
    ToolIndex tools;
    NodeIndex nodes;
    ListingDigest digest;
  };

  FleetSnapshot() = default;
  void put(FleetNode node);
  void remove(std::string_view node_id);
  void count(const FleetNode& node, int sign);

  uint64_t generation_ = 0;
  NodeIndex nodes_;  // every node by node_id: where a changed node was
  std::map<std::string, TenantIndex, std::less<>> tenants_;  // tenants with at least one node
  std::array<uint64_t, kNodeStateCount> by_state_{};  // indexed by NodeState
  uint64_t serving_ = 0;
};

// A call (CallRequest, CallResult, CallDone: common/protocol/tool_call.h) reaches the command path
// through FleetView::call once the front's CallGate has admitted it: the tool resolved for the
// tenant, scope checked, arguments validated, the rate limit applied (CallOrigin::kFront).

// Receives one node's telemetry (MetricsSample JSON, system.metrics.sample@1.0.0) as it arrives.
struct TelemetryHandler {
  std::function<void(std::string_view sample_json)> on_sample;
  std::function<void()> on_offline;  // the node's session ended, or its manifest went away
};

// Delivery stops when this is destroyed. A callback already running may still finish and one
// more may start shortly after, so callbacks must only hold weak references.
class TelemetryWatch {
 public:
  virtual ~TelemetryWatch() = default;
};

// The core's figures that GET /metrics shows next to the front's own.
struct FleetStats {
  uint64_t announces_verified = 0, announces_refused = 0;
  uint64_t calls_queued = 0;   // submitted, not yet dispatched by the broker thread
  uint64_t calls_pending = 0;  // dispatched, waiting for cmd_ack
  // What the core refused, denied or dropped on MQTT, by what ("connect", "publish", "cmd_ack_late" …):
  // every one, also when its audit line was throttled.
  std::vector<std::pair<std::string_view, uint64_t>> mqtt_refusals;
  uint64_t audit_lines_throttled = 0;  // the core's refusal lines not written
};

class FleetView {
 public:
  virtual ~FleetView() = default;

  virtual std::shared_ptr<const FleetSnapshot> snapshot() const = 0;
  // Replaces the listener; the front sets it once before serving.
  virtual void set_change_listener(std::function<void()> on_change) = 0;
  // Answers E_DEADLINE_EXCEEDED itself once the gateway deadline (docs/protocol.md §4) of the
  // called capability has passed without the device answering: the front keeps no deadline of its
  // own. The plugin's core does so from its call table (swept on every tick, at most ~100 ms late).
  virtual void call(CallRequest request, CallDone done) = 0;
  virtual std::unique_ptr<TelemetryWatch> watch_telemetry(std::string_view node_id, TelemetryHandler handler) = 0;
  virtual FleetStats stats() const { return {}; }
  // An agent token's jti on the revocation list (docs/protocol.md §2).
  virtual bool token_revoked(std::string_view jti) const {
    (void)jti;
    return false;
  }
};

}  // namespace fleetmcp::http
