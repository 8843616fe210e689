// The plugin's state and its answer to each broker event, in plain C++: the module's callbacks
// (broker_callbacks.cc) translate mosquitto's structs into these calls and back, and the unit
// tests make the same calls with a fake BrokerPort. All of it runs on the broker thread except
// what is marked "any thread".
//
// The methods are split across files by event: fleet_plugin_auth.cc (who a client is),
// fleet_plugin_acl.cc (ACL checks), fleet_plugin_announce.cc (docs/protocol.md §5 announces, status,
// restored retained messages), fleet_plugin_calls.cc (command path, $CONTROL driver),
// fleet_plugin_bridge.cc (traffic over a bridge between brokers, docs/protocol.md §12),
// fleet_plugin_tick.cc (tick, disconnect, reload).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <string_view>
#include <utility>
#include <vector>

#include "broker_plugin/access/acl_rule.h"
#include "broker_plugin/announces/announce_verifier.h"
#include "broker_plugin/core/broker_port.h"
#include "broker_plugin/calls/call_table.h"
#include "broker_plugin/access/client_id_claims.h"
#include "broker_plugin/access/client_identity.h"
#include "common/protocol/topics.h"
#include "broker_plugin/core/fleet_observer.h"
#include "broker_plugin/announces/node_registry.h"
#include "broker_plugin/core/plugin_counters.h"
#include "broker_plugin/core/plugin_options.h"
#include "broker_plugin/access/session_table.h"
#include "broker_plugin/access/topic_acl.h"
#include "common/base/audit_log.h"
#include "common/base/result.h"
#include "common/registry/kinds.h"
#include "common/base/refusal_throttle.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::plugin {

// Maps onto MOSQ_ERR_SUCCESS / MOSQ_ERR_ACL_DENIED (or MOSQ_ERR_AUTH) / MOSQ_ERR_PLUGIN_DEFER.
enum class Verdict { kAllow, kDeny, kDefer };

struct AclEvent {
  AclAccess access = kAclRead;
  std::string_view topic;
  std::string_view payload;
  bool retain = false;
};

struct MessageEvent {
  std::string_view topic;
  std::string_view payload;
  bool retain = false;
};

// Makes the broker loop turn now (the loopback waker's 0-byte publish). Any thread.
class Waker {
 public:
  virtual ~Waker() = default;
  virtual void wake() = 0;
};

class FleetPlugin : private NodeFacts {
 public:
  using Clock = std::function<int64_t()>;

  // Loads everything the options name; throws Error naming the option whose file is wrong.
  FleetPlugin(PluginOptions options, BrokerPort& broker, Clock clock);
  ~FleetPlugin() override;

  // Broker thread: one method per event.
  Verdict on_basic_auth(const ClientView& client, std::optional<std::string_view> password);
  Verdict on_acl_check(const ClientView& client, const AclEvent& event);
  Verdict on_message(const ClientView& client, const MessageEvent& event);
  void on_control(const ClientView& client, std::string_view payload);
  void on_tick();
  void on_disconnect(const ClientView& client);
  void on_reload();
  // Persists the state file; the module calls it from mosquitto_plugin_cleanup.
  void shutdown();

  // Any thread. `done` runs once, on the broker thread. A request of origin kFront is trusted
  // to have passed the front's CallGate (common/protocol/tool_call.h).
  void submit_call(CallRequest request, CallDone done);
  // A retained message the waker received while scanning $devices/+/announce and /status.
  void accept_scanned(std::string topic, std::string payload);
  void set_waker(Waker* waker);  // before the broker loop runs
  void set_observer(FleetObserver* observer) { observer_ = observer; }  // before the loop runs

  // What the module, the adapter, the benches and the tests read of the core. Every part lives
  // as long as the core; the registry is broker-thread state, the rest may be read from any thread.
  struct Parts {
    const PluginOptions& options;
    const WakerCredentials& waker_credentials;
    const NodeRegistry& registry;
    const std::shared_ptr<const SchemaRegistry>& schemas;
    const PluginCounters& counters;  // counters.ticks tells the waker the broker loop turns
    // Shared with the HTTP front, so a deployment has one audit trail (write_line is thread-safe).
    AuditLog& audit;
  };
  Parts parts() const { return {options_, identity_.waker(), registry_, schemas_, counters_, *audit_}; }

  // Broker-thread probes for the tests: how much state the core holds right now.
  struct Load {
    size_t pending_calls;
    size_t cached_announce_verdicts;
  };
  Load load() const { return {calls_.pending(), announces_.cached()}; }

 private:
  // NodeFacts, for the policy's node conditions.
  std::optional<std::string_view> tenant_of(std::string_view node_id) const override;
  bool manifest_fresh(std::string_view node_id) const override;

  // fleet_plugin_auth.cc
  Session* session_for(const ClientView& client);
  std::optional<IdentityRefusal> client_id_held_by_another(const ClientView& client, const Principal& who);
  void claim_client_id(const ClientView& client, const Principal& who);
  Verdict check_bridged_cmd(const Principal& bridge, std::string_view node_id, const AclEvent& event);
  Session* identify_by_certificate(const ClientView& client);
  Session* identify_node(const ClientView& client, const Certificate& cert);
  void start_node_session(const void* handle, const Principal& node);
  void queue_kick(const void* handle, Session& session, std::string_view reason);
  // Agents only; the clock is read only for them, keeping it off the nodes' hot path.
  bool token_expired(const Principal& who) const;

  // fleet_plugin_acl.cc
  Verdict check_devices_topic(const ClientView& client, Session& session, const AclEvent& event);
  Verdict check_other_topic(Session& session, const AclEvent& event);
  Verdict check_retain_source(const ClientView& source, const AclEvent& event);
  Verdict refuse_unidentified(const ClientView& client, Session& session, const AclEvent& event);
  void audit_acl_denial(const Session& session, const AclEvent& event, AclRefusal refusal);

  // fleet_plugin_announce.cc
  Verdict check_announce(const ClientView& client, Session& session, const AclEvent& event,
                         const AclVerdict& policy);
  AnnounceContext facts_for(const NodeRecord* node, std::string_view node_id, const Certificate* cert,
                          int64_t now_ms) const;
  void refuse_announce(std::string_view client_id, const Principal& node, const ErrorEnvelope& error,
                       std::string_view etag);
  void commit_announce(const Principal& node, std::string_view payload);
  void commit_manifest(NodeRecord& node, std::shared_ptr<const ManifestSummary> manifest,
                       std::shared_ptr<const Certificate> cert);
  void deregister(NodeRecord& node);
  bool verify_restored(std::string_view node_id, std::string_view payload);
  void clear_restored(std::string_view node_id, const ErrorEnvelope& why);
  void clear_announce(std::string_view node_id);
  void refresh_status(NodeRecord& node);
  void node_changed(std::string_view node_id) {
    if (observer_ != nullptr) observer_->node_changed(node_id);
  }
  void node_went_offline(std::string_view node_id) {
    if (observer_ != nullptr) observer_->node_went_offline(node_id);
  }

  // fleet_plugin_bridge.cc
  struct BridgedAnnounce {
    AnnounceOutcome outcome;
    std::shared_ptr<const Certificate> certificate;  // the one it was checked against
  };
  Verdict on_bridged_message(const ClientView& bridge, const DevicesTopic& topic, const MessageEvent& event);
  Verdict check_bridged_announce(const ClientView& bridge, std::string_view node_id, const AclEvent& event,
                                 const AclVerdict& policy);
  Verdict accept_bridged_announce(const ClientView& bridge, std::string_view node_id, const MessageEvent& event);
  BridgedAnnounce verify_bridged_announce(std::string_view node_id, std::string_view payload);
  std::shared_ptr<const Certificate> enrolled_certificate(std::string_view node_id) const;
  void refuse_bridged_announce(const ClientView& bridge, std::string_view node_id, const ErrorEnvelope& error);
  Verdict accept_bridged_status(const ClientView& bridge, std::string_view node_id, std::string_view payload);
  void set_remote_liveness(NodeRecord& node, const void* bridge, bool online);
  void bridge_went_down(const void* bridge);
  void note_relayed_cmd(std::string_view payload);

  // fleet_plugin_calls.cc
  struct CallTarget {
    const NodeRecord* node;
    const Capability* capability;
    const VerbSpec* verb;
    std::string tool;  // dotted, for the cmd
  };
  // The call's node, capability and verb, looked up by their ids (no name parsing).
  Result<CallTarget> resolve(const QueuedCall& call, int64_t now_ms) const;
  void dispatch_submitted(int64_t now_ms);
  Status dispatch(QueuedCall& call, int64_t now_ms);
  // over_bridge: an ack answering no call here is another broker's, not worth an audit line.
  void on_cmd_ack(std::string_view node_id, std::string_view payload, bool over_bridge);
  void finish_call(SentCall& call, CallResult result);
  void fail_calls_of(std::string_view node_id, ErrorCode code);
  void expire_calls(int64_t now_ms);
  std::string nodes_json(const Principal& agent) const;

  // fleet_plugin_tick.cc
  uint64_t ticks() const { return counters_.ticks.load(std::memory_order_relaxed); }
  void first_tick();
  void drain_scanned();
  void sweep_expired(int64_t now_ms);
  void run_kicks();
  void sweep_tokens(int64_t now_ms);
  void sweep_claims(int64_t now_ms);
  void save_state_if_due(int64_t now_ms, bool force);
  void load_state();
  void apply_revocations();

  // Every decision gets a line, but drop/deny/refuse lines go through refusal_lines_ (issue 24):
  // per (decision, code, tenant, caller) one line per plugin_opt_audit_refusal_interval_ms, the
  // next one saying how many it stands for; the counters stay exact. `caller_verified` false (a
  // refused identity names whatever it claimed) leaves the caller out of the key, so made-up
  // names cannot multiply the lines.
  void audit(const AuditRecord& record, bool caller_verified = true);

  PluginOptions options_;
  BrokerPort& broker_;
  Clock clock_;
  std::shared_ptr<const SchemaRegistry> schemas_;
  std::shared_ptr<const RevocationList> revoked_;
  ClientIdentity identity_;
  TopicAcl acl_;
  AnnounceVerifier announces_;
  NodeRegistry registry_;
  SessionTable sessions_;
  ClientIdClaims claims_;  // whose each agent's and bridge's client id is (issue 24)
  CallTable calls_;
  std::vector<QueuedCall> submitted_;  // the batch dispatch_submitted works through
  json::ParseArena ack_arena_;  // each cmd_ack is parsed here (broker thread), done with before the next
  std::unique_ptr<AuditLog> audit_;
  RefusalThrottle refusal_lines_;
  PluginCounters counters_;
  Waker* waker_ = nullptr;
  FleetObserver* observer_ = nullptr;

  std::set<std::string, std::less<>> clearing_;  // announces being cleared this loop turn
  // Kicked from the tick, never inside a check; only if that very connection is still there.
  struct PendingKick {
    uint64_t due_tick;
    const void* handle;
    std::string client_id;
  };
  std::vector<PendingKick> kicks_;
  std::unordered_set<const void*> bridges_;  // connections that brought bridged traffic
  std::mutex scanned_mutex_;
  std::vector<std::pair<std::string, std::string>> scanned_;  // from the waker's thread
  bool state_dirty_ = false;
  int64_t last_state_save_ms_ = 0;
  int64_t last_token_sweep_ms_ = 0;
  int64_t last_claim_sweep_ms_ = 0;
  uint64_t saved_claim_changes_ = 0;  // claims_.durable_changes() when the state file was written
};

}  // namespace fleetmcp::plugin
