// Traffic that crosses a bridge between brokers (docs/protocol.md §12, docs/sharding.md). It reaches the
// plugin in one of two shapes:
//  - this broker's own bridge (a `connection` in mosquitto.conf) delivers what it received from
//    the other broker. mosquitto skips the ACL check for bridges, so such a message arrives in
//    MOSQ_EVT_MESSAGE from a client the plugin never identified: no session means a bridge;
//  - another broker's bridge connects here as a client with a fleet:bridge token (a `bridge`
//    principal). Its publishes pass the topic policy like anyone's, then MESSAGE.
// Either way a bridge is trusted to carry traffic, not to vouch for it. An announce is verified
// (docs/protocol.md §5) against the node's enrolled certificate; status, telemetry and cmd_ack are believed
// only for remote nodes, never for a node connected here, whose state this plugin owns.
#include "broker_plugin/core/fleet_plugin.h"

#include <filesystem>

#include "common/protocol/topics.h"
#include "common/base/json.h"
#include "common/ids/tenant.h"
#include "common/ids/ulid.h"

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

Verdict FleetPlugin::on_bridged_message(const ClientView& bridge, const DevicesTopic& topic, const MessageEvent& event) {
  if (!is_node_id(topic.node_id)) return Verdict::kDeny;
  bridges_.insert(bridge.handle);
  NodeRecord* node = registry_.find(topic.node_id);
  const bool here = node != nullptr && node->session != nullptr;
  switch (topic.kind) {
    case DeviceLeaf::kCmd:
      if (here) note_relayed_cmd(event.payload);
      return Verdict::kAllow;
    case DeviceLeaf::kAnnounce:
    case DeviceLeaf::kStatus:
    case DeviceLeaf::kTelemetry:
    case DeviceLeaf::kCmdAck:
      // A node connected here is this plugin's to speak for: a bridge's word on it is an echo
      // (or a lie), and must not overwrite what this broker holds.
      if (here) return Verdict::kDeny;
      break;
    default:
      return Verdict::kDeny;  // rejected stays with the broker the node is connected to
  }
  switch (topic.kind) {
    case DeviceLeaf::kAnnounce: return accept_bridged_announce(bridge, topic.node_id, event);
    case DeviceLeaf::kStatus: return accept_bridged_status(bridge, topic.node_id, event.payload);
    case DeviceLeaf::kTelemetry:
      if (node != nullptr && node->remote && observer_ != nullptr) observer_->telemetry_arrived(topic.node_id, event.payload);
      return Verdict::kAllow;
    default:  // kCmdAck
      if (node != nullptr && node->remote) on_cmd_ack(topic.node_id, event.payload, /*over_bridge=*/true);
      return Verdict::kAllow;
  }
}

// A bridge principal's announce, in its ACL WRITE check: verified now, committed in MESSAGE.
Verdict FleetPlugin::check_bridged_announce(const ClientView& bridge, std::string_view node_id, const AclEvent& event,
                                            const AclVerdict& policy) {
  if (!policy.allowed) {
    audit_acl_denial(*sessions_.find(bridge.handle, bridge.id), event, policy.refusal);
    return Verdict::kDeny;
  }
  if (event.payload.empty()) return Verdict::kAllow;
  const NodeRecord* node = registry_.find(node_id);
  if (node != nullptr && node->session != nullptr) return Verdict::kDeny;
  const BridgedAnnounce checked = verify_bridged_announce(node_id, event.payload);
  if (!checked.outcome.accepted) {
    refuse_bridged_announce(bridge, node_id, checked.outcome.error);
    return Verdict::kDeny;
  }
  return Verdict::kAllow;
}

Verdict FleetPlugin::accept_bridged_announce(const ClientView& bridge, std::string_view node_id,
                                             const MessageEvent& event) {
  if (event.payload.empty()) {  // the owning plugin cleared it: deregistered, expired or revoked
    NodeRecord* node = registry_.find(node_id);
    if (node != nullptr && node->remote && node->manifest) deregister(*node);
    return Verdict::kAllow;
  }
  if (!event.retain) {
    refuse_bridged_announce(bridge, node_id,
                            ErrorEnvelope(ErrorCode::kManifestInvalid, "an announce must be retained",
                                          "bridge $devices/+/announce with mqttv50 (retain as published)"));
    return Verdict::kDeny;
  }
  const BridgedAnnounce checked = verify_bridged_announce(node_id, event.payload);
  if (!checked.outcome.accepted) {
    refuse_bridged_announce(bridge, node_id, checked.outcome.error);
    return Verdict::kDeny;
  }
  NodeRecord& node = registry_.get_or_create(node_id, checked.certificate->subject_o());
  const bool changed =
      !node.manifest || node.manifest->etag != checked.outcome.etag || !node.manifest_fresh(clock_());
  node.remote = true;
  node.remote_via = bridge.handle;
  commit_manifest(node, checked.outcome.manifest, checked.certificate);
  bump(counters_.bridged_announces);
  if (changed) {
    audit({.caller = bridge_name(bridge),
           .tenant = node.tenant,
           .topic = devices_topic(node_id, DeviceLeaf::kAnnounce),
           .node_id = node_id,
           .decision = "accept",
           .reason = "etag " + checked.outcome.etag + " over a bridge"});
  }
  return Verdict::kAllow;
}

// docs/protocol.md §5 for a node connected elsewhere: checks 5 and 6 against its enrolled certificate.
FleetPlugin::BridgedAnnounce FleetPlugin::verify_bridged_announce(std::string_view node_id, std::string_view payload) {
  BridgedAnnounce checked;
  const NodeRecord* node = registry_.find(node_id);
  const int64_t now = clock_();
  // A certificate remembered from an earlier announce chained to the CA then; it may have expired
  // since (issue 17): outside its validity period the one on disk must decide.
  std::shared_ptr<const Certificate> remembered = node != nullptr ? node->certificate : nullptr;
  if (remembered && (now < remembered->not_before_ms() || now >= remembered->not_after_ms())) remembered = nullptr;
  checked.certificate = remembered ? std::move(remembered) : enrolled_certificate(node_id);
  checked.outcome = announces_.check(payload, facts_for(node, node_id, checked.certificate.get(), now));
  if (checked.outcome.accepted || checked.outcome.error.code != ErrorCode::kAttestationFailed) return checked;
  // The remembered certificate may predate a re-enrolment: the one on disk decides.
  auto enrolled = enrolled_certificate(node_id);
  if (enrolled && (!checked.certificate || enrolled->thumbprint() != checked.certificate->thumbprint())) {
    checked.certificate = std::move(enrolled);
    checked.outcome = announces_.check(payload, facts_for(node, node_id, checked.certificate.get(), now));
  } else if (!checked.certificate) {
    checked.outcome.error = no_enrolled_certificate(node_id);
  }
  return checked;
}

// <enrolled_certs_dir>/<node_id>/node.crt, if it is this node's certificate from the fleet CA.
// node_id is a validated ULID, so it cannot walk out of the directory.
std::shared_ptr<const Certificate> FleetPlugin::enrolled_certificate(std::string_view node_id) const {
  if (options_.enrolled_certs_dir.empty()) return nullptr;
  const std::string path = options_.enrolled_certs_dir + "/" + std::string(node_id) + "/node.crt";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return nullptr;
  auto loaded = Certificate::load_pem_file(path);
  if (!loaded) {
    broker_.log(LogLevel::kWarning, "fleetmcp: " + loaded.error().summary());
    return nullptr;
  }
  auto cert = std::make_shared<const Certificate>(std::move(*loaded));
  if (cert->subject_cn() == node_id && is_tenant_name(cert->subject_o()) &&
      cert->is_issued_by(identity_.ca(), clock_())) {
    return cert;
  }
  broker_.log(LogLevel::kWarning, "fleetmcp: " + path + " is not node " + std::string(node_id) +
                                      "'s certificate from the fleet CA (or has expired); ignored");
  return nullptr;
}

// No rejected topic to explain it on: the node is not here. The owning plugin told it already.
void FleetPlugin::refuse_bridged_announce(const ClientView& bridge, std::string_view node_id, const ErrorEnvelope& error) {
  counters_.count_refusal(error.code);
  bump(counters_.bridged_refused);
  const NodeRecord* node = registry_.find(node_id);
  audit({.caller = bridge_name(bridge),
         .tenant = node != nullptr ? std::string_view(node->tenant) : std::string_view{},
         .topic = devices_topic(node_id, DeviceLeaf::kAnnounce),
         .node_id = node_id,
         .decision = "refuse",
         .code = error_code_name(error.code),
         .reason = "announce over a bridge: " + error.message});
}

// The owning plugin's $devices/<id>/status: the liveness of a node connected there.
Verdict FleetPlugin::accept_bridged_status(const ClientView& bridge, std::string_view node_id, std::string_view payload) {
  NodeRecord* node = registry_.find(node_id);
  if (payload.empty()) {
    if (node != nullptr && node->remote) set_remote_liveness(*node, bridge.handle, false);
    return Verdict::kAllow;
  }
  std::optional<std::string> state;
  try {
    const json::Document doc = json::parse_strict(payload);
    if (const auto s = json::get_string(doc, "state")) state = std::string(*s);
  } catch (const Error&) {
    // Not a status this plugin could have written: dropped below.
  }
  if (!state) {
    bump(counters_.bridged_dropped);
    audit({.caller = bridge_name(bridge), .topic = devices_topic(node_id, DeviceLeaf::kStatus), .node_id = node_id,
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

void FleetPlugin::set_remote_liveness(NodeRecord& node, const void* bridge, bool online) {
  const bool was_live = node.live();
  node.remote_via = bridge;
  node.remote_online = online;
  node_changed(node.node_id);
  if (was_live && !node.live()) {
    fail_calls_of(node.node_id, ErrorCode::kNodeOffline);
    node_went_offline(node.node_id);
  }
}

// The nodes a bridge carried are unreachable once it drops, whatever their last status said.
void FleetPlugin::bridge_went_down(const void* bridge) {
  if (bridges_.erase(bridge) == 0) return;
  registry_.for_each([&](NodeRecord& node) {
    if (node.remote && node.remote_via == bridge) set_remote_liveness(node, bridge, false);
  });
}

void FleetPlugin::note_relayed_cmd(std::string_view payload) {
  try {
    const json::Document cmd = json::parse_strict(payload);
    if (const auto msg_id = json::get_string(cmd, "msg_id")) {
      calls_.remember_relayed(std::string(*msg_id), clock_());
      bump(counters_.relayed_cmds);
    }
  } catch (const Error&) {
    // The node checks every cmd itself (docs/protocol.md §4) and answers a bad one with an error ack.
  }
}

}  // namespace fleetmcp::plugin
