// The store of accepted manifests: what each node's record (node_registry.h) holds of its last
// accepted announce, from acceptance to its end: replaced by a newer one, withdrawn by the node (an
// empty announce, docs/protocol.md §3), expired (the tick's sweep, docs/protocol.md D7) or cleared
// by the plugin. Each change is told to NodeStatus and marks the state file dirty (issued_at_ms
// high-water mark, hardware pin, certificate); a replaced manifest's cached verdict is forgotten.
// Broker thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "broker_plugin/announces/announce_verifier.h"
#include "broker_plugin/announces/node_registry.h"
#include "broker_plugin/announces/node_status.h"
#include "broker_plugin/announces/pending_verdict.h"
#include "broker_plugin/base/audit_trail.h"
#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/plugin_counters.h"

namespace fleetmcp::plugin {

class ManifestStore {
 public:
  ManifestStore(NodeRegistry& registry, AnnounceVerifier& verifier, NodeStatus& status, BrokerPort& broker,
                const PluginClock& clock, AuditTrail& audit, PluginCounters& counters);

  // An announce that passed its checks: the node's manifest now. Audited as "accept" (by
  // `caller`, `how` appended to the reason) when it changed what the node showed.
  void accept(NodeRecord& node, const CheckedAnnounce& checked, std::string_view caller, std::string_view how);
  // The same without the audit line: a restored announce re-verified.
  void keep(NodeRecord& node, std::shared_ptr<const ManifestSummary> manifest, std::shared_ptr<const Certificate> cert);
  // The node published an empty announce.
  void deregister(NodeRecord& node);
  // The tick: manifests past expires_at_ms are cleared, audited and their nodes offline.
  void expire_due(int64_t now_ms);
  // Removes the node's retained announce (a zero-length retained publish).
  void clear_announce(std::string_view node_id);
  // A node's announce refused or cleared: `what` + the error's message, with the node's tenant.
  void audit_refused(std::string_view caller, std::string_view node_id, std::string_view decision,
                     const ErrorEnvelope& error, std::string_view what);

  bool changed_since_saved() const { return state_dirty_; }
  void saved() { state_dirty_ = false; }

 private:
  NodeRegistry& registry_;
  AnnounceVerifier& verifier_;
  NodeStatus& status_;
  BrokerPort& broker_;
  const PluginClock& clock_;
  AuditTrail& audit_;
  PluginCounters& counters_;
  bool state_dirty_ = false;
};

}  // namespace fleetmcp::plugin
