// Announces: a node's own announce from its ACL WRITE check to the registry, status, expiry,
// revocations and announces restored from persistence (announces.h). Bridged traffic is in
// announces_bridged.cc.
#include "broker_plugin/announces/announces.h"

#include <algorithm>

#include "broker_plugin/announces/status_message.h"
#include "common/crypto/digest.h"
#include "common/ids/ulid.h"

namespace fleetmcp::plugin {
namespace {

ErrorEnvelope publish_condition_refusal(AclRefusal refusal) {
  if (refusal == AclRefusal::kWill) {
    return ErrorEnvelope(ErrorCode::kManifestInvalid,
                         "a Will on the announce topic is refused: liveness is carried by the plugin's status "
                         "topic, never by a Will (docs/protocol.md D6)",
                         "remove the Will from the device's connection; the plugin "
                         "publishes $devices/<node_id>/status");
  }
  return ErrorEnvelope(ErrorCode::kManifestInvalid, "an announce must be published with the retain flag set",
                       "publish the signed manifest retained, QoS 1");
}

// The rejected message: the error envelope plus the etag of the refused announce.
std::string rejected_message(const ErrorEnvelope& error, std::string_view etag) {
  std::string json = error.to_json();
  json.pop_back();  // '}'
  json.append(",\"etag\":\"").append(etag).append("\"}");
  return json;
}

}  // namespace

Announces::Announces(Config config, BrokerPort& broker, const PluginClock& clock, AuditTrail& audit,
                     PluginCounters& counters)
    : verifier_(config.schemas, config.ca, config.revoked, config.verdict_cache_entries),
      ca_(config.ca),
      revoked_(std::move(config.revoked)),
      enrolled_certs_dir_(std::move(config.enrolled_certs_dir)),
      broker_(broker),
      clock_(clock),
      audit_(audit),
      counters_(counters) {}

std::optional<std::string_view> Announces::tenant_of(std::string_view node_id) const {
  const NodeRecord* node = registry_.find(node_id);
  if (node == nullptr || node->tenant.empty()) return std::nullopt;
  return std::string_view(node->tenant);
}

bool Announces::manifest_fresh(std::string_view node_id) const {
  const NodeRecord* node = registry_.find(node_id);
  return node != nullptr && !node->revoked && node->manifest_fresh(clock_());
}

void Announces::node_connected(const void* handle, const Principal& node) {
  NodeRecord& record = registry_.get_or_create(node.name, node.tenant);
  record.session = handle;
  record.remote = false;  // connected here now, whatever another broker said of it
  record.remote_online = false;
  record.remote_via = nullptr;
  refresh_status(record);
}

void Announces::node_disconnected(const void* handle, std::string_view node_id) {
  NodeRecord* node = registry_.find(node_id);
  if (node == nullptr || node->session != handle) return;  // a newer connection took over
  node->session = nullptr;
  refresh_status(*node);
  went_offline(node->node_id, /*fail_calls=*/true);
}

Verdict Announces::check(const ClientView& client, const Principal& node, std::string_view payload,
                         const AclVerdict& policy) {
  pending_.drop();
  if (!policy.allowed) {
    refuse(client.id, node, publish_condition_refusal(policy.refusal), blake3_256_hex(payload));
    return Verdict::kDeny;
  }
  if (payload.empty()) return Verdict::kAllow;  // deregistration (docs/protocol.md §3)
  AnnounceVerdict verdict =
      verifier_.check(payload, facts_for(registry_.find(node.name), node.name, node.certificate.get(), clock_()));
  if (verdict ? verdict->cache_hit : verdict.error().cache_hit) bump(counters_.announce_cache_hits);
  if (!verdict) {
    refuse(client.id, node, verdict.error().error, verdict.error().etag);
    return Verdict::kDeny;
  }
  pending_.hold(client.handle, {std::move(verdict).value(), node.certificate});
  return Verdict::kAllow;
}

AnnounceContext Announces::facts_for(const NodeRecord* node, std::string_view node_id, const Certificate* cert,
                                     int64_t now_ms) const {
  AnnounceContext facts;
  facts.now_ms = now_ms;
  facts.topic_node_id = node_id;
  facts.publisher_identity = node_id;
  facts.certificate = cert;
  facts.chain_verified = true;  // client_identity at connect, or the restore path before calling (bridge)
  if (node != nullptr) {
    facts.last_issued_at_ms = node->last_issued_at_ms;
    // The pin holds for the certificate it was made with; a new certificate is a re-enrolment.
    if (node->hw_pin && cert != nullptr && node->hw_pin->kid == cert->thumbprint()) {
      facts.pinned_hw_fingerprint = node->hw_pin->fingerprint;
    }
  }
  return facts;
}

void Announces::refuse(std::string_view client_id, const Principal& node, const ErrorEnvelope& error,
                                  std::string_view etag) {
  counters_.count_refusal(error.code);
  const std::string topic = devices_topic(node.name, DeviceLeaf::kAnnounce);
  audit_({.caller = node.name,
          .tenant = node.tenant,
          .topic = topic,
          .node_id = node.name,
          .decision = "refuse",
          .code = error_code_name(error.code),
          .reason = error.message});
  // Straight to the publisher: only it may read its rejected topic, and a 3.1.1 device has no
  // other way to learn why (docs/platform-notes.md §M9).
  broker_.publish(client_id, devices_topic(node.name, DeviceLeaf::kRejected), rejected_message(error, etag), 1, false);
}

void Announces::commit(const ClientView& client, const Principal& node, std::string_view payload) {
  std::optional<CheckedAnnounce> checked = pending_.take(client.handle, payload);
  NodeRecord& record = registry_.get_or_create(node.name, node.tenant);
  if (payload.empty()) {
    deregister(record);
    return;
  }
  if (!checked) {
    // Not the bytes the WRITE check verified (another plugin replaced them): verified now.
    AnnounceVerdict verdict = verifier_.check(payload, facts_for(&record, node.name, node.certificate.get(), clock_()));
    if (!verdict) return;
    checked = CheckedAnnounce{std::move(verdict).value(), node.certificate};
  }
  accept(record, checked->accepted, checked->certificate, node.name, "");
  bump(counters_.announces_accepted);
}

void Announces::accept(NodeRecord& node, const AcceptedAnnounce& outcome, std::shared_ptr<const Certificate> cert,
                       std::string_view caller, std::string_view how) {
  const bool changed = !node.manifest || node.manifest->etag != outcome.etag || !node.manifest_fresh(clock_());
  commit_manifest(node, outcome.manifest, std::move(cert));
  if (changed) {
    audit_({.caller = caller,
            .tenant = node.tenant,
            .topic = devices_topic(node.node_id, DeviceLeaf::kAnnounce),
            .node_id = node.node_id,
            .decision = "accept",
            .reason = "etag " + outcome.etag + std::string(how)});
  }
}

void Announces::commit_manifest(NodeRecord& node, std::shared_ptr<const ManifestSummary> manifest,
                                  std::shared_ptr<const Certificate> cert) {
  // The state file holds the issued_at_ms high-water mark, the pin and the certificate.
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
  refresh_status(node);
}

void Announces::deregister(NodeRecord& node) {
  if (node.manifest) verifier_.forget(node.manifest->payload_digest);
  node.manifest.reset();
  node.manifest_verified = false;
  node.manifest_expired = false;
  registry_.schedule_expiry(node);
  bump(counters_.deregistrations);
  audit_({.caller = node.node_id, .tenant = node.tenant, .node_id = node.node_id, .decision = "deregister"});
  refresh_status(node);
  went_offline(node.node_id, /*fail_calls=*/false);
}

// check_retain_source: may the original publisher of this retained message still have written
// it? For an announce that means: the node itself (or, for a node on another broker, the bridge)
// published it and it is the node's current, verified, unexpired manifest, or it verifies now (a
// message restored from persistence, which mosquitto loads without asking the plugin). Failures
// are cleared from the retained store.
Verdict Announces::check_retain_source(const ClientView& source, std::string_view topic_text,
                                       std::string_view payload) {
  const auto topic = parse_devices_topic(topic_text);
  if (!topic || !is_node_id(topic->node_id)) return Verdict::kDeny;
  switch (topic->kind) {
    case DeviceLeaf::kAnnounce: {
      const NodeRecord* node = registry_.find(topic->node_id);
      if (source.username != topic->node_id && (node == nullptr || !node->remote)) {
        // Only a node (or a bridge, for a remote node) writes its announce; anything else got
        // there while the plugin was absent.
        clear_restored(topic->node_id,
                       ErrorEnvelope(ErrorCode::kAttestationFailed, "the retained announce was not published by the node",
                                     "the node announces again when it reconnects"));
        return Verdict::kDeny;
      }
      if (node != nullptr && !node->revoked && node->manifest_fresh(clock_()) &&
          node->manifest->payload_digest == blake3_256(payload)) {
        return Verdict::kAllow;
      }
      return verify_restored(topic->node_id, payload) ? Verdict::kAllow : Verdict::kDeny;
    }
    case DeviceLeaf::kStatus:
      // Only the plugin writes status; a restored one of a known node stands until the first
      // tick republishes it, one of a node nobody remembers is removed.
      if (registry_.find(topic->node_id) != nullptr) return Verdict::kAllow;
      broker_.publish("", topic_text, "", 1, true);
      return Verdict::kDeny;
    default:
      return Verdict::kDeny;
  }
}

bool Announces::verify_restored(std::string_view node_id, std::string_view payload) {
  if (clearing_.count(node_id) != 0) return false;  // already being cleared this loop turn
  const int64_t now = clock_();
  NodeRecord* node = registry_.find(node_id);
  ErrorEnvelope error(ErrorCode::kAttestationFailed,
                      "no certificate is remembered for node " + std::string(node_id) +
                          " (plugin_opt_state_file), so its restored announce cannot be verified",
                      "the node announces again when it reconnects");
  if (node != nullptr && node->certificate) {
    if (node->revoked || !node->certificate->is_issued_by(ca_, now)) {
      error = ErrorEnvelope(ErrorCode::kAttestationFailed, "the remembered certificate of node " +
                                std::string(node_id) + " is revoked, expired or not from the fleet CA",
                            "re-enroll the node");
    } else {
      const AnnounceVerdict verdict = verifier_.check(payload, facts_for(node, node_id, node->certificate.get(), now));
      if (verdict) {
        commit_manifest(*node, verdict->manifest, node->certificate);
        bump(counters_.restored_verified);
        return true;
      }
      error = verdict.error().error;
    }
  }
  clear_restored(node_id, error);
  return false;
}

void Announces::clear_restored(std::string_view node_id, const ErrorEnvelope& error) {
  if (!clearing_.emplace(node_id).second) return;
  clear_announce(node_id);
  NodeRecord* node = registry_.find(node_id);
  if (node != nullptr && !node->manifest_fresh(clock_())) {
    node->manifest.reset();
    node_changed(node_id);
  }
  bump(counters_.restored_cleared);
  audit_refused("plugin", node_id, "clear", error, "restored announce refused: ");
}

void Announces::audit_refused(std::string_view caller, std::string_view node_id, std::string_view decision,
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

void Announces::clear_announce(std::string_view node_id) {
  // A zero-length retained publish removes the retained announce (retain.c); live subscribers
  // of the same tenant receive the empty message, which means "deregistered".
  broker_.publish("", devices_topic(node_id, DeviceLeaf::kAnnounce), "", 1, true);
}

// Called after every change of a node's session, manifest or revocation: it tells the observer too.
void Announces::refresh_status(NodeRecord& node) {
  node_changed(node.node_id);
  if (node.remote) return;  // its owning plugin publishes it; the bridge brings it here
  const NodeState state = node.state();
  const std::string etag = node.manifest ? node.manifest->etag : std::string();
  if (node.published_state == state && node.published_etag == etag) return;
  if (node.published_state != state) node.since_ms = clock_();
  node.published_state = state;
  node.published_etag = etag;
  broker_.publish("", devices_topic(node.node_id, DeviceLeaf::kStatus), status_message(node, state, node.since_ms), 1,
                  true);
}

void Announces::went_offline(std::string_view node_id, bool fail_calls) {
  if (fail_calls && unreachable_) unreachable_(node_id);
  if (observer_ != nullptr) observer_->node_went_offline(node_id);
}

void Announces::scanned(std::string_view topic_text, std::string_view payload, int64_t now_ms) {
  const auto topic = parse_devices_topic(topic_text);
  if (!topic || !is_node_id(topic->node_id) || payload.empty()) return;
  const NodeRecord* node = registry_.find(topic->node_id);
  if (topic->kind == DeviceLeaf::kAnnounce) {
    const bool current = node != nullptr && node->manifest_fresh(now_ms) &&
                         node->manifest->payload_digest == blake3_256(payload);
    if (!current) verify_restored(topic->node_id, payload);
  } else if (topic->kind == DeviceLeaf::kStatus && node == nullptr) {
    // A status nobody can explain (its node is unknown to the state file): remove it.
    broker_.publish("", topic_text, "", 1, true);
    audit_({.caller = "plugin", .topic = topic_text, .node_id = topic->node_id, .decision = "clear",
            .reason = "restored status of an unknown node"});
  }
}

void Announces::republish_status() {
  registry_.for_each([&](NodeRecord& node) { refresh_status(node); });
}

void Announces::sweep_expired(int64_t now_ms) {
  for (NodeRecord* node : registry_.take_expired(now_ms)) {
    if (!node->manifest || node->manifest_expired || node->manifest->expires_at_ms > now_ms) continue;
    node->manifest_expired = true;
    clear_announce(node->node_id);
    bump(counters_.manifests_expired);
    audit_({.caller = "plugin", .tenant = node->tenant, .topic = devices_topic(node->node_id, DeviceLeaf::kAnnounce),
            .node_id = node->node_id, .decision = "expire", .code = "E_MANIFEST_INVALID",
            .reason = "manifest passed expires_at_ms"});
    refresh_status(*node);
    went_offline(node->node_id, /*fail_calls=*/false);
  }
}

// Revoked nodes: announce cleared, status revoked, calls failed (Admission kicks their sessions).
void Announces::set_revocations(std::shared_ptr<const RevocationList> revoked) {
  revoked_ = std::move(revoked);
  verifier_.set_revocations(revoked_);
  pending_.drop();
  registry_.for_each([&](NodeRecord& node) {
    const bool revoked = revoked_->contains(node.node_id);
    if (revoked == node.revoked) return;
    node.revoked = revoked;
    if (revoked) {
      bump(counters_.nodes_revoked);
      clear_announce(node.node_id);
      node.manifest.reset();
      node.manifest_verified = false;
      node.session = nullptr;
      registry_.schedule_expiry(node);
      if (unreachable_) unreachable_(node.node_id);
      audit_({.caller = "plugin", .tenant = node.tenant, .node_id = node.node_id, .decision = "revoke"});
      if (observer_ != nullptr) observer_->node_went_offline(node.node_id);
    }
    refresh_status(node);
  });
}

}  // namespace fleetmcp::plugin
