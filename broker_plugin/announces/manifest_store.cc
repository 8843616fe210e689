#include "broker_plugin/announces/manifest_store.h"

#include <algorithm>

#include "common/protocol/topics.h"

namespace fleetmcp::plugin {

ManifestStore::ManifestStore(NodeRegistry& registry, AnnounceVerifier& verifier, NodeStatus& status,
                             BrokerPort& broker, const PluginClock& clock, AuditTrail& audit, PluginCounters& counters)
    : registry_(registry),
      verifier_(verifier),
      status_(status),
      broker_(broker),
      clock_(clock),
      audit_(audit),
      counters_(counters) {}

void ManifestStore::accept(NodeRecord& node, const CheckedAnnounce& checked, std::string_view caller,
                           std::string_view how) {
  const AcceptedAnnounce& accepted = checked.accepted;
  const bool changed = !node.manifest || node.manifest->etag != accepted.etag || !node.manifest_fresh(clock_());
  keep(node, accepted.manifest, checked.certificate);
  if (changed) {
    audit_({.caller = caller,
            .tenant = node.tenant,
            .topic = devices_topic(node.node_id, DeviceLeaf::kAnnounce),
            .node_id = node.node_id,
            .decision = "accept",
            .reason = "etag " + accepted.etag + std::string(how)});
  }
}

void ManifestStore::keep(NodeRecord& node, std::shared_ptr<const ManifestSummary> manifest,
                         std::shared_ptr<const Certificate> cert) {
  state_dirty_ = state_dirty_ || node.last_issued_at_ms != manifest->issued_at_ms ||
                 (cert && (!node.certificate || node.certificate->thumbprint() != cert->thumbprint()));
  node.last_issued_at_ms = std::max(node.last_issued_at_ms.value_or(manifest->issued_at_ms), manifest->issued_at_ms);
  if (cert && (!node.hw_pin || node.hw_pin->kid != cert->thumbprint())) {
    node.hw_pin = HwPin{manifest->hw_fingerprint, cert->thumbprint()};
  }
  if (cert) node.certificate = std::move(cert);
  if (node.manifest && node.manifest->payload_digest != manifest->payload_digest) {
    verifier_.forget(node.manifest->payload_digest);
  }
  node.manifest = std::move(manifest);
  node.manifest_verified = true;
  node.manifest_expired = false;
  registry_.schedule_expiry(node);
  status_.refresh(node);
}

void ManifestStore::deregister(NodeRecord& node) {
  if (node.manifest) verifier_.forget(node.manifest->payload_digest);
  node.manifest.reset();
  node.manifest_verified = false;
  node.manifest_expired = false;
  registry_.schedule_expiry(node);
  bump(counters_.deregistrations);
  audit_({.caller = node.node_id, .tenant = node.tenant, .node_id = node.node_id, .decision = "deregister"});
  status_.refresh(node);
  status_.went_offline(node.node_id, /*fail_calls=*/false);
}

void ManifestStore::expire_due(int64_t now_ms) {
  for (NodeRecord* node : registry_.take_expired(now_ms)) {
    if (!node->manifest || node->manifest_expired || node->manifest->expires_at_ms > now_ms) continue;
    node->manifest_expired = true;
    clear_announce(node->node_id);
    bump(counters_.manifests_expired);
    audit_({.caller = "plugin", .tenant = node->tenant, .topic = devices_topic(node->node_id, DeviceLeaf::kAnnounce),
            .node_id = node->node_id, .decision = "expire", .code = "E_MANIFEST_INVALID",
            .reason = "manifest passed expires_at_ms"});
    status_.refresh(*node);
    status_.went_offline(node->node_id, /*fail_calls=*/false);
  }
}

void ManifestStore::clear_announce(std::string_view node_id) {
  // A zero-length retained publish removes the retained announce (retain.c); live subscribers
  // of the same tenant receive the empty message, which means "deregistered".
  broker_.publish("", devices_topic(node_id, DeviceLeaf::kAnnounce), "", 1, true);
}

void ManifestStore::audit_refused(std::string_view caller, std::string_view node_id, std::string_view decision,
                                  const ErrorEnvelope& error, std::string_view what) {
  const NodeRecord* node = registry_.find(node_id);
  audit_({.caller = caller,
          .tenant = node != nullptr ? std::string_view(node->tenant) : std::string_view{},
          .topic = devices_topic(node_id, DeviceLeaf::kAnnounce),
          .node_id = node_id,
          .decision = decision,
          .code = error_code_name(error.code),
          .reason = std::string(what) + error.message});
}

}  // namespace fleetmcp::plugin
