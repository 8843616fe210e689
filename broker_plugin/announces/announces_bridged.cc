#include "broker_plugin/announces/announces_bridged.h"

#include <filesystem>

#include "common/base/json.h"
#include "common/ids/tenant.h"
#include "common/ids/ulid.h"
#include "common/protocol/topics.h"

namespace fleetmcp::plugin {
namespace {

std::string_view bridge_name(const ClientView& bridge) { return bridge.username.empty() ? bridge.id : bridge.username; }

ErrorEnvelope no_enrolled_certificate(std::string_view node_id) {
  return ErrorEnvelope(ErrorCode::kAttestationFailed,
                       "no valid enrolled certificate of node " + std::string(node_id) +
                           " (from the fleet CA, not expired) is known to this broker, so its announce from a "
                           "bridge cannot be verified",
                       "copy the node's node.crt to <plugin_opt_enrolled_certs_dir>/<node_id>/node.crt on this broker");
}

}  // namespace

BridgedAnnounces::BridgedAnnounces(Trust trust, NodeRegistry& registry, AnnounceVerifier& verifier,
                                   PendingVerdict& pending, ManifestStore& store, NodeStatus& status,
                                   BrokerPort& broker, const PluginClock& clock, AuditTrail& audit,
                                   PluginCounters& counters)
    : trust_(std::move(trust)),
      registry_(registry),
      verifier_(verifier),
      pending_(pending),
      store_(store),
      status_(status),
      broker_(broker),
      clock_(clock),
      audit_(audit),
      counters_(counters) {}

Verdict BridgedAnnounces::check(const ClientView& bridge, std::string_view node_id, std::string_view payload) {
  pending_.drop();
  if (payload.empty()) return Verdict::kAllow;
  const NodeRecord* node = registry_.find(node_id);
  if (node != nullptr && node->session != nullptr) return Verdict::kDeny;
  auto checked = verify(node_id, payload);
  if (!checked) {
    refuse(bridge, node_id, checked.error().error);
    return Verdict::kDeny;
  }
  pending_.hold(bridge.handle, payload, std::move(checked).value());
  return Verdict::kAllow;
}

Verdict BridgedAnnounces::accept(const ClientView& bridge, std::string_view node_id, std::string_view payload,
                                 bool retain) {
  std::optional<CheckedAnnounce> held = pending_.take(bridge.handle, payload);
  if (payload.empty()) {  // the owning plugin cleared it: deregistered, expired or revoked
    NodeRecord* node = registry_.find(node_id);
    if (node != nullptr && node->remote && node->manifest) store_.deregister(*node);
    return Verdict::kAllow;
  }
  if (!retain) {
    refuse(bridge, node_id,
           ErrorEnvelope(ErrorCode::kManifestInvalid, "an announce must be retained",
                         "bridge $devices/+/announce with mqttv50 (retain as published)"));
    return Verdict::kDeny;
  }
  // Another broker's bridge principal had it verified in its WRITE check; this broker's own
  // bridge skips that check (docs/platform-notes.md §M4), so its announces are verified here.
  auto checked = held ? Result<CheckedAnnounce, AnnounceRefusal>(std::move(*held)) : verify(node_id, payload);
  if (!checked) {
    refuse(bridge, node_id, checked.error().error);
    return Verdict::kDeny;
  }
  NodeRecord& node = registry_.get_or_create(node_id, checked->certificate->subject_o());
  node.remote = true;
  node.remote_via = bridge.handle;
  store_.accept(node, *checked, bridge_name(bridge), " over a bridge");
  bump(counters_.bridged_announces);
  return Verdict::kAllow;
}

// docs/protocol.md §5 for a node connected elsewhere: checks 5 and 6 against its enrolled certificate.
Result<CheckedAnnounce, AnnounceRefusal> BridgedAnnounces::verify(std::string_view node_id, std::string_view payload) {
  const NodeRecord* node = registry_.find(node_id);
  const int64_t now = clock_();
  // A certificate remembered from an earlier announce chained to the CA then; it may have expired
  // since (issue 17): outside its validity period the one on disk must decide.
  std::shared_ptr<const Certificate> remembered = node != nullptr ? node->certificate : nullptr;
  if (remembered && (now < remembered->not_before_ms() || now >= remembered->not_after_ms())) remembered = nullptr;
  std::shared_ptr<const Certificate> certificate = remembered ? std::move(remembered) : enrolled_certificate(node_id);
  AnnounceVerdict verdict = verifier_.check(payload, announce_facts(node, node_id, certificate.get(), now));
  if (!verdict && verdict.error().error.code == ErrorCode::kAttestationFailed) {
    // The remembered certificate may predate a re-enrolment: the one on disk decides.
    auto enrolled = enrolled_certificate(node_id);
    if (enrolled && (!certificate || enrolled->thumbprint() != certificate->thumbprint())) {
      certificate = std::move(enrolled);
      verdict = verifier_.check(payload, announce_facts(node, node_id, certificate.get(), now));
    } else if (!certificate) {
      return AnnounceRefusal{no_enrolled_certificate(node_id), verdict.error().etag, false};
    }
  }
  if (!verdict) return std::move(verdict).error();
  return CheckedAnnounce{std::move(verdict).value(), std::move(certificate)};
}

// <enrolled_certs_dir>/<node_id>/node.crt, if it is this node's certificate from the fleet CA.
// node_id is a validated ULID, so it cannot walk out of the directory.
std::shared_ptr<const Certificate> BridgedAnnounces::enrolled_certificate(std::string_view node_id) const {
  if (trust_.enrolled_certs_dir.empty()) return nullptr;
  const std::string path = trust_.enrolled_certs_dir + "/" + std::string(node_id) + "/node.crt";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return nullptr;
  auto loaded = Certificate::load_pem_file(path);
  if (!loaded) {
    broker_.log(LogLevel::kWarning, "fleetmcp: " + loaded.error().summary());
    return nullptr;
  }
  auto cert = std::make_shared<const Certificate>(std::move(*loaded));
  if (cert->subject_cn() == node_id && is_tenant_name(cert->subject_o()) && cert->is_issued_by(trust_.ca, clock_())) {
    return cert;
  }
  broker_.log(LogLevel::kWarning, "fleetmcp: " + path + " is not node " + std::string(node_id) +
                                      "'s certificate from the fleet CA (or has expired); ignored");
  return nullptr;
}

// No rejected topic to explain it on: the node is not here. The owning plugin told it already.
void BridgedAnnounces::refuse(const ClientView& bridge, std::string_view node_id, const ErrorEnvelope& error) {
  counters_.count_refusal(error.code);
  bump(counters_.bridged_refused);
  store_.audit_refused(bridge_name(bridge), node_id, "refuse", error, "announce over a bridge: ");
}

// The owning plugin's $devices/<id>/status: the liveness of a node connected there.
Verdict BridgedAnnounces::accept_status(const ClientView& bridge, std::string_view node_id, std::string_view payload) {
  NodeRecord* node = registry_.find(node_id);
  if (payload.empty()) {
    if (node != nullptr && node->remote) set_remote_liveness(*node, bridge.handle, false);
    return Verdict::kAllow;
  }
  std::optional<std::string> state;  // none: not a status this plugin could have written, dropped below
  if (const auto doc = json::parse_strict(payload)) {
    if (const auto s = json::get_string(*doc, "state")) state = std::string(*s);
  }
  if (!state) {
    bump(counters_.bridged_dropped);
    audit_({.caller = bridge_name(bridge), .topic = devices_topic(node_id, DeviceLeaf::kStatus), .node_id = node_id,
            .decision = "drop", .code = "E_BAD_REQUEST", .reason = "status over a bridge is not a status message"});
    return Verdict::kDeny;
  }
  if (node == nullptr) {
    // Learnt from its enrolled certificate (for the tenant); without one nobody here may read it.
    auto cert = enrolled_certificate(node_id);
    if (!cert) return Verdict::kAllow;
    node = &registry_.get_or_create(node_id, cert->subject_o());
    node->certificate = std::move(cert);
  }
  node->remote = true;
  set_remote_liveness(*node, bridge.handle, *state == "online");
  return Verdict::kAllow;
}

void BridgedAnnounces::set_remote_liveness(NodeRecord& node, const void* bridge, bool online) {
  const bool was_live = node.live();
  node.remote_via = bridge;
  node.remote_online = online;
  status_.changed(node.node_id);
  if (was_live && !node.live()) status_.went_offline(node.node_id, /*fail_calls=*/true);
}

// The nodes a bridge carried are unreachable once it drops, whatever their last status said.
bool BridgedAnnounces::went_down(const void* bridge) {
  if (bridges_.erase(bridge) == 0) return false;
  registry_.for_each([&](NodeRecord& node) {
    if (node.remote && node.remote_via == bridge) set_remote_liveness(node, bridge, false);
  });
  return true;
}

}  // namespace fleetmcp::plugin
