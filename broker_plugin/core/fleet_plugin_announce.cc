// Announces (docs/protocol.md §5) and what follows from them: the verdict in the ACL WRITE check (so
// Wills are covered too), bookkeeping in MESSAGE, $devices/<id>/rejected for refusals, the
// retained $devices/<id>/status, and re-verification of announces restored from persistence.
#include "broker_plugin/core/fleet_plugin.h"

#include <algorithm>

#include "common/protocol/topics.h"
#include "broker_plugin/announces/status_message.h"
#include "common/crypto/digest.h"

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

Verdict FleetPlugin::check_announce(const ClientView& client, Session& session, const AclEvent& event,
                                    const AclVerdict& policy) {
  if (session.principal->kind == PrincipalKind::kBridge) {
    return check_bridged_announce(client, parse_devices_topic(event.topic)->node_id, event, policy);
  }
  const Principal& node = *session.principal;
  if (!policy.allowed) {
    refuse_announce(client.id, node, publish_condition_refusal(policy.refusal), blake3_256_hex(event.payload));
    return Verdict::kDeny;
  }
  if (event.payload.empty()) return Verdict::kAllow;  // deregistration (docs/protocol.md §3)
  const AnnounceOutcome outcome = announces_.check(
      event.payload, facts_for(registry_.find(node.name), node.name, node.certificate.get(), clock_()));
  if (outcome.cache_hit) bump(counters_.announce_cache_hits);
  if (!outcome.accepted) {
    refuse_announce(client.id, node, outcome.error, outcome.etag);
    return Verdict::kDeny;
  }
  return Verdict::kAllow;
}

AnnounceContext FleetPlugin::facts_for(const NodeRecord* node, std::string_view node_id, const Certificate* cert,
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

void FleetPlugin::refuse_announce(std::string_view client_id, const Principal& node, const ErrorEnvelope& error,
                                  std::string_view etag) {
  counters_.count_refusal(error.code);
  const std::string topic = devices_topic(node.name, DeviceLeaf::kAnnounce);
  audit({.caller = node.name,
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

Verdict FleetPlugin::on_message(const ClientView& client, const MessageEvent& event) {
  const auto topic = parse_devices_topic(event.topic);
  if (!topic) return Verdict::kAllow;
  // Every client's publish passed an ACL check first, which gave it a session; only this broker's
  // own bridge publishes without one (mosquitto skips the check for bridges).
  const Session* session = sessions_.find(client.handle, client.id);
  if (session == nullptr || (session->principal && session->principal->kind == PrincipalKind::kBridge)) {
    return on_bridged_message(client, *topic, event);
  }
  if (!session->principal) return topic->kind == DeviceLeaf::kAnnounce ? Verdict::kDeny : Verdict::kAllow;
  // The policy lets only the node itself publish on these leaves of its topics.
  const Principal& who = *session->principal;
  if (who.kind != PrincipalKind::kNode || who.name != topic->node_id) return Verdict::kAllow;
  switch (topic->kind) {
    case DeviceLeaf::kAnnounce: commit_announce(who, event.payload); break;
    case DeviceLeaf::kCmdAck: on_cmd_ack(topic->node_id, event.payload, /*over_bridge=*/false); break;
    case DeviceLeaf::kTelemetry:
      if (observer_ != nullptr) observer_->telemetry_arrived(topic->node_id, event.payload);
      break;
    default: break;
  }
  return Verdict::kAllow;
}

void FleetPlugin::commit_announce(const Principal& node, std::string_view payload) {
  NodeRecord& record = registry_.get_or_create(node.name, node.tenant);
  if (payload.empty()) {
    deregister(record);
    return;
  }
  // The WRITE check just verified these bytes, so this is a cache hit that hands back the
  // summary to keep.
  const AnnounceOutcome outcome =
      announces_.check(payload, facts_for(&record, node.name, node.certificate.get(), clock_()));
  if (!outcome.accepted) return;
  const bool changed = !record.manifest || record.manifest->etag != outcome.etag || !record.manifest_fresh(clock_());
  commit_manifest(record, outcome.manifest, node.certificate);
  bump(counters_.announces_accepted);
  if (changed) {
    audit({.caller = node.name,
           .tenant = node.tenant,
           .topic = devices_topic(node.name, DeviceLeaf::kAnnounce),
           .node_id = node.name,
           .decision = "accept",
           .reason = "etag " + outcome.etag});
  }
}

void FleetPlugin::commit_manifest(NodeRecord& node, std::shared_ptr<const ManifestSummary> manifest,
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
    announces_.forget(node.manifest->payload_digest);
  }
  node.manifest = std::move(manifest);
  node.manifest_verified = true;
  node.manifest_expired = false;
  registry_.schedule_expiry(node);
  refresh_status(node);
}

void FleetPlugin::deregister(NodeRecord& node) {
  if (node.manifest) announces_.forget(node.manifest->payload_digest);
  node.manifest.reset();
  node.manifest_verified = false;
  node.manifest_expired = false;
  registry_.schedule_expiry(node);
  bump(counters_.deregistrations);
  audit({.caller = node.node_id, .tenant = node.tenant, .node_id = node.node_id, .decision = "deregister"});
  refresh_status(node);
  node_went_offline(node.node_id);
}

bool FleetPlugin::verify_restored(std::string_view node_id, std::string_view payload) {
  if (clearing_.count(node_id) != 0) return false;  // already being cleared this loop turn
  const int64_t now = clock_();
  NodeRecord* node = registry_.find(node_id);
  ErrorEnvelope error(ErrorCode::kAttestationFailed,
                      "no certificate is remembered for node " + std::string(node_id) +
                          " (plugin_opt_state_file), so its restored announce cannot be verified",
                      "the node announces again when it reconnects");
  if (node != nullptr && node->certificate) {
    if (node->revoked || !node->certificate->is_issued_by(identity_.ca(), now)) {
      error = ErrorEnvelope(ErrorCode::kAttestationFailed, "the remembered certificate of node " +
                                std::string(node_id) + " is revoked, expired or not from the fleet CA",
                            "re-enroll the node");
    } else {
      const AnnounceOutcome outcome = announces_.check(payload, facts_for(node, node_id, node->certificate.get(), now));
      if (outcome.accepted) {
        commit_manifest(*node, outcome.manifest, node->certificate);
        bump(counters_.restored_verified);
        return true;
      }
      error = outcome.error;
    }
  }
  clear_restored(node_id, error);
  return false;
}

void FleetPlugin::clear_restored(std::string_view node_id, const ErrorEnvelope& error) {
  if (!clearing_.emplace(node_id).second) return;
  clear_announce(node_id);
  NodeRecord* node = registry_.find(node_id);
  if (node != nullptr && !node->manifest_fresh(clock_())) {
    node->manifest.reset();
    node_changed(node_id);
  }
  bump(counters_.restored_cleared);
  audit({.caller = "plugin",
         .tenant = node != nullptr ? std::string_view(node->tenant) : std::string_view{},
         .topic = devices_topic(node_id, DeviceLeaf::kAnnounce),
         .node_id = node_id,
         .decision = "clear",
         .code = error_code_name(error.code),
         .reason = "restored announce refused: " + error.message});
}

void FleetPlugin::clear_announce(std::string_view node_id) {
  // A zero-length retained publish removes the retained announce (retain.c); live subscribers
  // of the same tenant receive the empty message, which means "deregistered".
  broker_.publish("", devices_topic(node_id, DeviceLeaf::kAnnounce), "", 1, true);
}

// Called after every change of a node's session, manifest or revocation: it tells the observer too.
void FleetPlugin::refresh_status(NodeRecord& node) {
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

}  // namespace fleetmcp::plugin
