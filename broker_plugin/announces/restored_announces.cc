#include "broker_plugin/announces/restored_announces.h"

#include "common/crypto/digest.h"
#include "common/ids/ulid.h"
#include "common/protocol/topics.h"

namespace fleetmcp::plugin {

RestoredAnnounces::RestoredAnnounces(NodeRegistry& registry, AnnounceVerifier& verifier, ManifestStore& store,
                                     NodeStatus& status, const Certificate& ca, BrokerPort& broker,
                                     const PluginClock& clock, AuditTrail& audit, PluginCounters& counters)
    : registry_(registry),
      verifier_(verifier),
      store_(store),
      status_(status),
      ca_(ca),
      broker_(broker),
      clock_(clock),
      audit_(audit),
      counters_(counters) {}

// For an announce: the node itself (or, for a node on another broker, the bridge) published it
// and it is the node's current, verified, unexpired manifest, or it verifies now. Failures are
// cleared from the retained store.
Verdict RestoredAnnounces::check_retain_source(const ClientView& source, std::string_view topic_text,
                                               std::string_view payload) {
  const auto topic = parse_devices_topic(topic_text);
  if (!topic || !is_node_id(topic->node_id)) return Verdict::kDeny;
  switch (topic->kind) {
    case DeviceLeaf::kAnnounce: {
      const NodeRecord* node = registry_.find(topic->node_id);
      if (source.username != topic->node_id && (node == nullptr || !node->remote)) {
        // Only a node (or a bridge, for a remote node) writes its announce; anything else got
        // there while the plugin was absent.
        clear(topic->node_id, ErrorEnvelope(ErrorCode::kAttestationFailed,
                                            "the retained announce was not published by the node",
                                            "the node announces again when it reconnects"));
        return Verdict::kDeny;
      }
      if (node != nullptr && !node->revoked && node->manifest_fresh(clock_()) &&
          node->manifest->payload_digest == blake3_256(payload)) {
        return Verdict::kAllow;
      }
      return verify(topic->node_id, payload) ? Verdict::kAllow : Verdict::kDeny;
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

void RestoredAnnounces::scanned(std::string_view topic_text, std::string_view payload, int64_t now_ms) {
  const auto topic = parse_devices_topic(topic_text);
  if (!topic || !is_node_id(topic->node_id) || payload.empty()) return;
  const NodeRecord* node = registry_.find(topic->node_id);
  if (topic->kind == DeviceLeaf::kAnnounce) {
    const bool current = node != nullptr && node->manifest_fresh(now_ms) &&
                         node->manifest->payload_digest == blake3_256(payload);
    if (!current) verify(topic->node_id, payload);
  } else if (topic->kind == DeviceLeaf::kStatus && node == nullptr) {
    // A status nobody can explain (its node is unknown to the state file): remove it.
    broker_.publish("", topic_text, "", 1, true);
    audit_({.caller = "plugin", .topic = topic_text, .node_id = topic->node_id, .decision = "clear",
            .reason = "restored status of an unknown node"});
  }
}

bool RestoredAnnounces::verify(std::string_view node_id, std::string_view payload) {
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
      const AnnounceVerdict verdict =
          verifier_.check(payload, announce_facts(node, node_id, node->certificate.get(), now));
      if (verdict) {
        store_.keep(*node, verdict->manifest, node->certificate);
        bump(counters_.restored_verified);
        return true;
      }
      error = verdict.error().error;
    }
  }
  clear(node_id, error);
  return false;
}

void RestoredAnnounces::clear(std::string_view node_id, const ErrorEnvelope& error) {
  if (!clearing_.emplace(node_id).second) return;
  store_.clear_announce(node_id);
  NodeRecord* node = registry_.find(node_id);
  if (node != nullptr && !node->manifest_fresh(clock_())) {
    node->manifest.reset();
    status_.changed(node_id);
  }
  bump(counters_.restored_cleared);
  store_.audit_refused("plugin", node_id, "clear", error, "restored announce refused: ");
}

}  // namespace fleetmcp::plugin
