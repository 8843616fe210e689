// Announces and status over a bridge between brokers (docs/protocol.md §12, docs/sharding.md): a
// bridge is trusted to carry traffic, not to vouch for it. An announce of a node connected
// elsewhere is verified (docs/protocol.md §5) against the node's certificate, remembered or
// enrolled on this broker (plugin_opt_enrolled_certs_dir); its status is believed only for remote
// nodes, and says whether calls can reach it. Broker thread only.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>

#include "broker_plugin/announces/announce_verifier.h"
#include "broker_plugin/announces/manifest_store.h"
#include "broker_plugin/announces/node_registry.h"
#include "broker_plugin/announces/pending_verdict.h"
#include "broker_plugin/base/audit_trail.h"
#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/plugin_counters.h"

namespace fleetmcp::plugin {

class BridgedAnnounces {
 public:
  // What a bridged announce is checked against: the fleet CA and the enrolled certificates.
  struct Trust {
    const Certificate& ca;
    std::string enrolled_certs_dir;
  };
  BridgedAnnounces(Trust trust, NodeRegistry& registry, AnnounceVerifier& verifier, PendingVerdict& pending,
                   ManifestStore& store, NodeStatus& status, BrokerPort& broker, const PluginClock& clock,
                   AuditTrail& audit, PluginCounters& counters);

  // Another broker's bridge principal's announce in its ACL WRITE check, the policy having
  // allowed it: verified now, its verdict held for its MESSAGE (pending_verdict.h).
  Verdict check(const ClientView& bridge, std::string_view node_id, std::string_view payload);
  // MESSAGE from a bridge (this broker's own, which skips the WRITE check, or another broker's
  // bridge principal).
  Verdict accept(const ClientView& bridge, std::string_view node_id, std::string_view payload, bool retain);
  Verdict accept_status(const ClientView& bridge, std::string_view node_id, std::string_view payload);
  void carried(const void* bridge) { bridges_.insert(bridge); }
  // The nodes a bridge carried are unreachable once it drops. False: not a bridge.
  bool went_down(const void* bridge);

 private:
  Result<CheckedAnnounce, AnnounceRefusal> verify(std::string_view node_id, std::string_view payload);
  std::shared_ptr<const Certificate> enrolled_certificate(std::string_view node_id) const;
  void refuse(const ClientView& bridge, std::string_view node_id, const ErrorEnvelope& error);
  void set_remote_liveness(NodeRecord& node, const void* bridge, bool online);

  const Trust trust_;
  NodeRegistry& registry_;
  AnnounceVerifier& verifier_;
  PendingVerdict& pending_;
  ManifestStore& store_;
  NodeStatus& status_;
  BrokerPort& broker_;
  const PluginClock& clock_;
  AuditTrail& audit_;
  PluginCounters& counters_;
  std::unordered_set<const void*> bridges_;  // connections that brought bridged traffic
};

}  // namespace fleetmcp::plugin
