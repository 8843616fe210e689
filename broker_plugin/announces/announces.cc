// Announces: a node's own announce from its ACL WRITE check to its commit, node sessions and
// revocations, over the parts it owns (announces.h).
#include "broker_plugin/announces/announces.h"

#include "common/crypto/digest.h"
#include "common/protocol/topics.h"

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
    : clock_(clock),
      broker_(broker),
      audit_(audit),
      counters_(counters),
      verifier_(config.schemas, config.ca, config.revoked, config.verdict_cache_entries),
      status_(broker, clock),
      store_(registry_, verifier_, status_, broker, clock, audit, counters),
      restored_(registry_, verifier_, store_, status_, config.ca, broker, clock, audit, counters),
      bridged_({config.ca, std::move(config.enrolled_certs_dir)}, registry_, verifier_, pending_, store_, status_,
               broker, clock, audit, counters) {}

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
  status_.refresh(record);
}

void Announces::node_disconnected(const void* handle, std::string_view node_id) {
  NodeRecord* node = registry_.find(node_id);
  if (node == nullptr || node->session != handle) return;  // a newer connection took over
  node->session = nullptr;
  status_.refresh(*node);
  status_.went_offline(node->node_id, /*fail_calls=*/true);
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
      verifier_.check(payload, announce_facts(registry_.find(node.name), node.name, node.certificate.get(), clock_()));
  if (verdict ? verdict->cache_hit : verdict.error().cache_hit) bump(counters_.announce_cache_hits);
  if (!verdict) {
    refuse(client.id, node, verdict.error().error, verdict.error().etag);
    return Verdict::kDeny;
  }
  pending_.hold(client.handle, payload, {std::move(verdict).value(), node.certificate});
  return Verdict::kAllow;
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

Verdict Announces::commit(const ClientView& client, const Principal& node, std::string_view payload) {
  std::optional<CheckedAnnounce> checked = pending_.take(client.handle, payload);
  NodeRecord& record = registry_.get_or_create(node.name, node.tenant);
  if (payload.empty()) {
    store_.deregister(record);
    return Verdict::kAllow;
  }
  if (!checked) {
    // Not the bytes the WRITE check verified (another plugin replaced them): verified now.
    AnnounceVerdict verdict =
        verifier_.check(payload, announce_facts(&record, node.name, node.certificate.get(), clock_()));
    if (!verdict) {
      refuse(client.id, node, verdict.error().error, verdict.error().etag);
      return Verdict::kDeny;
    }
    checked = CheckedAnnounce{std::move(verdict).value(), node.certificate};
  }
  store_.accept(record, *checked, node.name, "");
  bump(counters_.announces_accepted);
  return Verdict::kAllow;
}

void Announces::republish_status() {
  registry_.for_each([&](NodeRecord& node) { status_.refresh(node); });
}

// Revoked nodes: announce cleared, status revoked, calls failed (Admission kicks their sessions).
void Announces::set_revocations(std::shared_ptr<const RevocationList> revoked) {
  verifier_.set_revocations(revoked);
  pending_.drop();
  registry_.for_each([&](NodeRecord& node) {
    const bool is_revoked = revoked->contains(node.node_id);
    if (is_revoked == node.revoked) return;
    node.revoked = is_revoked;
    if (is_revoked) {
      bump(counters_.nodes_revoked);
      store_.clear_announce(node.node_id);
      node.manifest.reset();
      node.manifest_verified = false;
      node.session = nullptr;
      registry_.schedule_expiry(node);
      status_.went_offline(node.node_id, /*fail_calls=*/true);
      audit_({.caller = "plugin", .tenant = node.tenant, .node_id = node.node_id, .decision = "revoke"});
    }
    status_.refresh(node);
  });
}

}  // namespace fleetmcp::plugin
