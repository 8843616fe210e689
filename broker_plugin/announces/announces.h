// The fleet's nodes as their announces describe them (docs/protocol.md §5): the verdict on a
// node's announce in its ACL WRITE check (so Wills are covered too), the commit in MESSAGE, the
// explanation on $devices/<id>/rejected, the retained $devices/<id>/status, manifests expiring,
// revocations, announces restored from persistence (re-verified, or cleared) and announces that
// arrive over a bridge between brokers (docs/protocol.md §12, verified against the node's enrolled
// certificate). Owns the verifier with its verdict cache and the node registry, which the rest of
// the core reads. Broker thread only.
//
// Every change of a node is told to the observer (node_changed); a node that stops being
// reachable is told to `unreachable` first (FleetPlugin fails its calls there), then to the
// observer (node_went_offline).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>

#include "broker_plugin/access/principal.h"
#include "broker_plugin/access/topic_acl.h"
#include "broker_plugin/announces/announce_verifier.h"
#include "broker_plugin/announces/node_registry.h"
#include "broker_plugin/announces/pending_verdict.h"
#include "broker_plugin/base/audit_trail.h"
#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/fleet_observer.h"
#include "broker_plugin/base/plugin_counters.h"
#include "common/protocol/topics.h"

namespace fleetmcp::plugin {

class Announces : private NodeFacts {
 public:
  struct Config {
    std::shared_ptr<const SchemaRegistry> schemas;
    const Certificate& ca;  // the fleet CA (ClientIdentity's)
    std::shared_ptr<const RevocationList> revoked;
    size_t verdict_cache_entries;
    std::string enrolled_certs_dir;  // plugin_opt_enrolled_certs_dir: certificates of nodes on other brokers
  };
  Announces(Config config, BrokerPort& broker, const PluginClock& clock, AuditTrail& audit, PluginCounters& counters);

  // Wired before the broker loop runs.
  void set_observer(FleetObserver* observer) { observer_ = observer; }
  void set_unreachable(std::function<void(std::string_view node_id)> unreachable) {
    unreachable_ = std::move(unreachable);
  }

  NodeRegistry& registry() { return registry_; }
  const NodeRegistry& registry() const { return registry_; }
  // What the topic policy's node conditions (tenant=, fresh=manifest) ask of the registry.
  const NodeFacts& facts() const { return *this; }
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
  // deregistered). The check's verdict is used when it was reached on these bytes.
  void commit(const ClientView& client, const Principal& node, std::string_view payload);

  // Retained messages mosquitto restored from persistence, before the plugin could check them:
  // check_retain_source's answer for $devices/ topics, and the waker's scan of them.
  Verdict check_retain_source(const ClientView& source, std::string_view topic, std::string_view payload);
  void scanned(std::string_view topic, std::string_view payload, int64_t now_ms);

  // The tick.
  void start_turn() {
    clearing_.clear();  // the clears queued last turn have been applied by now
    pending_.drop();    // a check whose MESSAGE never came
  }
  void republish_status();                   // the first tick: status of every node remembered
  void sweep_expired(int64_t now_ms);
  // SIGHUP: revoked nodes are cleared (announce, status, calls), unrevoked ones come back.
  void set_revocations(std::shared_ptr<const RevocationList> revoked);

  // Over a bridge. A bridge principal's announce in its ACL WRITE check, the policy having allowed it:
  Verdict check_bridged(const ClientView& bridge, std::string_view node_id, std::string_view payload);
  // MESSAGE from a bridge (this broker's own, or another broker's bridge principal).
  Verdict accept_bridged(const ClientView& bridge, std::string_view node_id, std::string_view payload, bool retain);
  Verdict accept_bridged_status(const ClientView& bridge, std::string_view node_id, std::string_view payload);
  void bridge_carried(const void* bridge) { bridges_.insert(bridge); }
  // The nodes a bridge carried are unreachable once it drops. False: not a bridge.
  bool bridge_went_down(const void* bridge);

  // The state file holds each node's issued_at_ms high-water mark, pin and certificate.
  bool changed_since_saved() const { return state_dirty_; }
  void saved() { state_dirty_ = false; }

 private:
  // NodeFacts
  std::optional<std::string_view> tenant_of(std::string_view node_id) const override;
  bool manifest_fresh(std::string_view node_id) const override;

  AnnounceContext facts_for(const NodeRecord* node, std::string_view node_id, const Certificate* cert,
                            int64_t now_ms) const;
  void commit_manifest(NodeRecord& node, std::shared_ptr<const ManifestSummary> manifest,
                       std::shared_ptr<const Certificate> cert);
  // Commits an accepted announce; audits it when it changed the node's manifest.
  void accept(NodeRecord& node, const AcceptedAnnounce& outcome, std::shared_ptr<const Certificate> cert,
              std::string_view caller, std::string_view how);
  void deregister(NodeRecord& node);
  bool verify_restored(std::string_view node_id, std::string_view payload);
  void clear_restored(std::string_view node_id, const ErrorEnvelope& why);
  void clear_announce(std::string_view node_id);
  // A node's announce refused or cleared: `what` + the error's message, with the node's tenant.
  void audit_refused(std::string_view caller, std::string_view node_id, std::string_view decision,
                     const ErrorEnvelope& error, std::string_view what);
  // After every change of a node's session, manifest or revocation; tells the observer too.
  void refresh_status(NodeRecord& node);
  void went_offline(std::string_view node_id, bool fail_calls);
  Result<CheckedAnnounce, AnnounceRefusal> verify_bridged(std::string_view node_id, std::string_view payload);
  std::shared_ptr<const Certificate> enrolled_certificate(std::string_view node_id) const;
  void refuse_bridged(const ClientView& bridge, std::string_view node_id, const ErrorEnvelope& error);
  void set_remote_liveness(NodeRecord& node, const void* bridge, bool online);
  void node_changed(std::string_view node_id) {
    if (observer_ != nullptr) observer_->node_changed(node_id);
  }

  AnnounceVerifier verifier_;
  PendingVerdict pending_;
  NodeRegistry registry_;
  const Certificate& ca_;
  std::shared_ptr<const RevocationList> revoked_;
  const std::string enrolled_certs_dir_;
  BrokerPort& broker_;
  const PluginClock& clock_;
  AuditTrail& audit_;
  PluginCounters& counters_;
  FleetObserver* observer_ = nullptr;
  std::function<void(std::string_view node_id)> unreachable_;

  std::set<std::string, std::less<>> clearing_;  // announces being cleared this loop turn
  std::unordered_set<const void*> bridges_;      // connections that brought bridged traffic
  bool state_dirty_ = false;
};

}  // namespace fleetmcp::plugin
