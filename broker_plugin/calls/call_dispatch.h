// The command path (docs/protocol.md §4) on the broker thread: calls queued from any thread are
// dispatched on the tick as a `cmd` straight to the node's client (for a node on another broker:
// through the subscriptions, i.e. the bridge), correlated with their `cmd_ack` by node and
// in_reply_to, checked against the tool's output schema and result.node_id (RFC-0005 §6 step 8),
// failed at once when the node goes away, failed at the gateway deadline; late and unmatched acks
// are dropped and audited. Every call ends in finish(): counted, audited (unless the front writes
// its own line) and answered through its CallDone.
//
// It reads the node registry (Announces owns it) and never changes it. Broker thread, except
// submit().
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/announces/node_registry.h"
#include "broker_plugin/calls/call_table.h"
#include "broker_plugin/base/audit_trail.h"
#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/plugin_counters.h"
#include "common/base/json.h"
#include "common/base/result.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::plugin {

class CallDispatch {
 public:
  CallDispatch(const NodeRegistry& registry, const SchemaRegistry& schemas, BrokerPort& broker, const PluginClock& clock,
               AuditTrail& audit, PluginCounters& counters);

  // Any thread. `wake` false from the broker thread, whose tick runs at the end of this loop turn.
  void submit(QueuedCall call, bool wake = true) { calls_.submit(std::move(call), clock_(), wake); }
  // Set once, before any thread submits: makes the broker loop turn now.
  void set_wake(std::function<void()> wake) { calls_.set_wake(std::move(wake)); }

  // The tick: sends what was submitted since the last one, fails what is past its deadline.
  void dispatch_submitted(int64_t now_ms);
  void expire(int64_t now_ms);
  // A node's cmd_ack. over_bridge: an ack answering no call here is another broker's, not worth
  // an audit line.
  void on_cmd_ack(std::string_view node_id, std::string_view payload, bool over_bridge);
  // The node went offline, was revoked or its bridge dropped: its calls fail with `code` now.
  void fail_calls_of(std::string_view node_id, ErrorCode code);
  // A cmd another broker's bridge carried to a node here: its ack is that broker's to answer.
  void note_relayed_cmd(std::string_view payload);
  // Ends a call that never reached its node (refused before dispatch).
  void refuse(QueuedCall call, std::string tool, ErrorEnvelope error);

  size_t pending() const { return calls_.pending(); }

 private:
  struct Target {
    const NodeRecord* node;
    const Capability* capability;
    const VerbSpec* verb;
  };
  // The call's node, capability and verb, looked up by their ids; the capability must still be of
  // the kind the request's tool name says (no name parsed or rebuilt).
  Result<Target> resolve(const QueuedCall& call, int64_t now_ms) const;
  Status dispatch(QueuedCall& call, int64_t now_ms);
  void finish(SentCall& call, CallResult result);

  const NodeRegistry& registry_;
  const SchemaRegistry& schemas_;
  BrokerPort& broker_;
  const PluginClock& clock_;
  AuditTrail& audit_;
  PluginCounters& counters_;
  CallTable calls_;
  std::vector<QueuedCall> submitted_;  // the batch dispatch_submitted works through
  json::ParseArena ack_arena_;  // each cmd_ack is parsed here, done with before the next
};

// The answer a caller gets for a node, capability or verb it cannot see: the same for "no such
// node", "another tenant's node" and "no such capability", so it learns nothing.
ErrorEnvelope call_target_not_found(const CallRequest& request);

}  // namespace fleetmcp::plugin
