// The fleet's nodes as their announces describe them (docs/protocol.md §5): the collaborator the
// core hands every announce event to. It owns the parts, each with one job, and does itself
// what is left: a node's own announce from its ACL WRITE check (so Wills are covered too) to its
// commit in MESSAGE, the explanation on $devices/<id>/rejected, node sessions and revocations.
//   AnnounceVerifier   (announce_verifier.h)   docs/protocol.md §6.1's checks, with the verdict cache;
//   PendingVerdict     (pending_verdict.h)     the check's verdict carried to the commit;
//   ManifestStore      (manifest_store.h)      accepted manifests in the node registry, until
//                                              replaced, withdrawn, expired or cleared;
//   NodeStatus         (node_status.h)         the retained status and the observer, after each change;
//   RestoredAnnounces  (restored_announces.h)  announces mosquitto restored from persistence;
//   BridgedAnnounces   (announces_bridged.h)   announces and status over a bridge (docs/protocol.md §12).
// The node registry (node_registry.h) is read by the rest of the core. Broker thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "broker_plugin/access/principal.h"
#include "broker_plugin/access/topic_acl.h"
#include "broker_plugin/announces/announce_verifier.h"
#include "broker_plugin/announces/announces_bridged.h"
#include "broker_plugin/announces/manifest_store.h"
#include "broker_plugin/announces/node_registry.h"
#include "broker_plugin/announces/node_status.h"
#include "broker_plugin/announces/pending_verdict.h"
#include "broker_plugin/announces/restored_announces.h"
#include "broker_plugin/base/audit_trail.h"
#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/fleet_observer.h"
#include "broker_plugin/base/plugin_counters.h"

namespace fleetmcp::plugin {

class Announces : private NodeFacts {
 public:
  struct Config {
    std::shared_ptr<const SchemaRegistry> schemas;
    const Certificate& ca;  // the fleet CA (ClientIdentity's)
    std::shared_ptr<const RevocationList> revoked;  // the core's, shared
    size_t verdict_cache_entries;
    std::string enrolled_certs_dir;  // plugin_opt_enrolled_certs_dir: certificates of nodes on other brokers
  };
  Announces(Config config, BrokerPort& broker, const PluginClock& clock, AuditTrail& audit, PluginCounters& counters);

  // Wired before the broker loop runs (NodeStatus says when each is called).
  void set_observer(FleetObserver* observer) { status_.set_observer(observer); }
  void set_unreachable(std::function<void(std::string_view node_id)> unreachable) {
    status_.set_unreachable(std::move(unreachable));
  }

  NodeRegistry& registry() { return registry_; }
  const NodeRegistry& registry() const { return registry_; }
  // What the topic policy's node conditions (tenant=, fresh=manifest) ask of the registry.
  const NodeFacts& facts() const { return *this; }
  RestoredAnnounces& restored() { return restored_; }
  BridgedAnnounces& bridged() { return bridged_; }
  size_t cached_verdicts() const { return verifier_.cached(); }
  uint64_t verifications() const { return verifier_.verifications(); }

  // A node's session here started (Admission identified it) or ended.
  void node_connected(const void* handle, const Principal& node);
  void node_disconnected(const void* handle, std::string_view node_id);

  // A node's own announce in its ACL WRITE check, after the policy's verdict on it. An accepted
  // one's verdict is held for its MESSAGE (pending_verdict.h).
  Verdict check(const ClientView& client, const Principal& node, std::string_view payload, const AclVerdict& policy);
  // Tells the publisher why on its rejected topic; audited and counted.
  void refuse(std::string_view client_id, const Principal& node, const ErrorEnvelope& error, std::string_view etag);
  // The announce the WRITE check accepted was delivered: the node's manifest now (empty:
  // deregistered). The check's verdict is used when it was reached on these bytes; other bytes
  // (another plugin replaced them after the check) are verified now, and refused as in `check`:
  // kDeny, so the broker neither stores nor retains them.
  Verdict commit(const ClientView& client, const Principal& node, std::string_view payload);

  // The tick.
  void start_turn() {
    restored_.start_turn();
    pending_.drop();  // a check whose MESSAGE never came
  }
  void republish_status();  // the first tick: status of every node remembered
  void sweep_expired(int64_t now_ms) { store_.expire_due(now_ms); }
  // SIGHUP: revoked nodes are cleared (announce, status, calls), unrevoked ones come back.
  void set_revocations(std::shared_ptr<const RevocationList> revoked);

  // The state file holds each node's issued_at_ms high-water mark, pin and certificate.
  bool changed_since_saved() const { return store_.changed_since_saved(); }
  void saved() { store_.saved(); }

 private:
  // NodeFacts
  std::optional<std::string_view> tenant_of(std::string_view node_id) const override;
  bool manifest_fresh(std::string_view node_id) const override;

  const PluginClock& clock_;
  BrokerPort& broker_;
  AuditTrail& audit_;
  PluginCounters& counters_;
  AnnounceVerifier verifier_;
  NodeRegistry registry_;
  NodeStatus status_;
  ManifestStore store_;
  PendingVerdict pending_;
  RestoredAnnounces restored_;
  BridgedAnnounces bridged_;
};

}  // namespace fleetmcp::plugin
