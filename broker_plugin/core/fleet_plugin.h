// The plugin's answer to each broker event, in plain C++: the module's callbacks
// (broker_callbacks.cc) translate mosquitto's structs into these calls and back, and the unit
// tests make the same calls with a fake BrokerPort. All of it runs on the broker thread except
// what is marked "any thread".
//
// FleetPlugin is a facade over three collaborators, each readable (and testable) alone:
//   Admission    (access/admission.h)       who a client is, its session, client-id claims, kicks;
//   Announces    (announces/announces.h)    announces, the node registry, status, restored and
//                                           bridged announces;
//   CallDispatch (calls/call_dispatch.h)    calls to nodes and their cmd_acks (and ControlDriver,
//                                           the $CONTROL test driver, over it).
// It keeps what routes an event to them: the ACL decision (fleet_plugin_acl.cc), MESSAGE
// (fleet_plugin_message.cc), the tick, DISCONNECT, reload and the state file
// (fleet_plugin_tick.cc); and what they share, passed by reference: the audit trail, the counters,
// the clock and the broker.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker_plugin/access/admission.h"
#include "broker_plugin/access/topic_acl.h"
#include "broker_plugin/announces/announces.h"
#include "broker_plugin/calls/call_dispatch.h"
#include "broker_plugin/calls/control_driver.h"
#include "broker_plugin/base/audit_trail.h"
#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/fleet_observer.h"
#include "broker_plugin/base/plugin_counters.h"
#include "broker_plugin/core/plugin_options.h"
#include "common/base/audit_log.h"
#include "common/protocol/topics.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::plugin {

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

class FleetPlugin {
 public:
  // Loads everything the options name; throws Error naming the option whose file is wrong.
  FleetPlugin(PluginOptions options, BrokerPort& broker, PluginClock clock);
  ~FleetPlugin();

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
  // The HTTP front's verifier of identity providers' tokens, for agents on MQTT (client_identity.h).
  void set_issuer_tokens(IssuerTokenCheck check) { admission_.set_issuer_tokens(std::move(check)); }
  void set_observer(FleetObserver* observer) {  // before the loop runs
    observer_ = observer;
    announces_.set_observer(observer);
  }

  // What the module, the adapter, the benches and the tests read of the core. Every part lives
  // as long as the core; the registry and the revocation list are broker-thread state, the rest
  // may be read from any thread. The core loads each file its options name once: the HTTP front
  // shares its issuer key, the adapter starts from its revocation list (then hears of each reload).
  struct Parts {
    const PluginOptions& options;
    const WakerCredentials& waker_credentials;
    const Ed25519PublicKey& issuer;
    const std::shared_ptr<const RevocationList>& revoked;
    const NodeRegistry& registry;
    const std::shared_ptr<const SchemaRegistry>& schemas;
    const PluginCounters& counters;  // counters.ticks tells the waker the broker loop turns
    // Shared with the HTTP front, so a deployment has one audit trail (write_line is thread-safe).
    AuditLog& audit;
  };
  Parts parts() const {
    return {options_, admission_.identity().waker(), admission_.identity().issuer(), revoked_, announces_.registry(),
            schemas_, counters_, audit_.log()};
  }

  // Broker-thread probes for the tests: how much state the core holds right now.
  struct Load {
    size_t pending_calls;
    size_t cached_announce_verdicts;
    uint64_t announce_verifications;  // announces judged by docs/protocol.md §6.1's checks so far
  };
  Load load() const { return {calls_.pending(), announces_.cached_verdicts(), announces_.verifications()}; }

 private:
  // fleet_plugin_acl.cc: the ACL decision, routed to the collaborators.
  // The connection's session; a node's first check identifies it (and starts its node session).
  Session* session_for(const ClientView& client) {
    if (Session* known = admission_.find(client)) return known;
    return admitted(admission_.identify_by_certificate(client), client);
  }
  // A connection Admission just identified: a node's session starts in Announces.
  Session* admitted(Session* session, const ClientView& client);
  Verdict check_devices_topic(const ClientView& client, Session& session, const AclEvent& event);
  Verdict check_other_topic(Session& session, const AclEvent& event);
  Verdict check_bridged_cmd(const Principal& bridge, std::string_view node_id, const AclEvent& event);
  Verdict refuse_unidentified(const ClientView& client, Session& session, const AclEvent& event);
  AclVerdict evaluate_policy(const Session& session, const AclEvent& event) const;
  void audit_acl_denial(const Session& session, const AclEvent& event, AclRefusal refusal);

  // fleet_plugin_message.cc
  Verdict on_bridged_message(const ClientView& bridge, const DevicesTopic& topic, const MessageEvent& event);

  // fleet_plugin_tick.cc
  void drain_scanned(int64_t now_ms);
  void save_state_if_due(int64_t now_ms, bool force);
  Status load_state();  // the state file, at start-up

  PluginOptions options_;
  BrokerPort& broker_;
  PluginClock clock_;
  PluginCounters counters_;
  std::shared_ptr<const SchemaRegistry> schemas_;
  std::shared_ptr<const RevocationList> revoked_;
  Admission admission_;
  TopicAcl acl_;
  Announces announces_;
  AuditTrail audit_;  // shared with the HTTP front (parts().audit)
  CallDispatch calls_;
  ControlDriver control_;
  Waker* waker_ = nullptr;
  FleetObserver* observer_ = nullptr;

  std::mutex scanned_mutex_;
  std::vector<std::pair<std::string, std::string>> scanned_;  // from the waker's thread
  int64_t last_state_save_ms_ = 0;
  uint64_t saved_claim_changes_ = 0;  // the claims' durable_changes() when the state file was written
};

}  // namespace fleetmcp::plugin
