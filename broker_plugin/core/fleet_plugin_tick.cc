// The broker loop's housekeeping: MOSQ_EVT_TICK (at most every 100 ms, at once after a wake),
// MOSQ_EVT_DISCONNECT, MOSQ_EVT_RELOAD (SIGHUP), and the state file.
#include "broker_plugin/core/fleet_plugin.h"

#include <algorithm>

#include "common/protocol/topics.h"
#include "broker_plugin/core/state_file.h"
#include "common/crypto/digest.h"
#include "common/ids/ulid.h"

namespace fleetmcp::plugin {
namespace {

constexpr int64_t kStateSaveIntervalMs = 5000;   // the state is small, but the broker thread writes it
constexpr int64_t kTokenSweepIntervalMs = 1000;
constexpr int64_t kClaimSweepIntervalMs = 60'000;  // claims are kept for days; a lookup ignores expired ones

std::vector<PersistedNode> persisted_nodes(NodeRegistry& registry) {
  std::vector<PersistedNode> nodes;
  registry.for_each([&](NodeRecord& n) {
    if (!n.certificate && !n.last_issued_at_ms) return;  // nothing worth remembering yet
    PersistedNode p;
    p.node_id = n.node_id;
    p.tenant = n.tenant;
    if (n.certificate) p.certificate_pem = n.certificate->to_pem();
    p.last_issued_at_ms = n.last_issued_at_ms;
    if (n.hw_pin) {
      p.hw_fingerprint = n.hw_pin->fingerprint;
      p.hw_kid = n.hw_pin->kid;
    }
    p.remote = n.remote;
    nodes.push_back(std::move(p));
  });
  return nodes;
}

}  // namespace

void FleetPlugin::on_tick() {
  const int64_t now = clock_();
  if (counters_.ticks.fetch_add(1, std::memory_order_relaxed) == 0) first_tick();
  clearing_.clear();  // the clears queued last turn have been applied by now
  drain_scanned();
  dispatch_submitted(now);
  expire_calls(now);
  sweep_expired(now);
  sweep_tokens(now);
  sweep_claims(now);
  run_kicks();
  sessions_.drop_ended();
  save_state_if_due(now, false);
  if (observer_ != nullptr) observer_->fleet_ticked(now);
}

// mosquitto restored retained messages before the plugin was loaded. Status is republished for
// every node the state file knows; announces are re-verified as the waker's scan (or any
// subscriber) reaches them.
void FleetPlugin::first_tick() {
  registry_.for_each([&](NodeRecord& node) { refresh_status(node); });
  broker_.log(LogLevel::kNotice, "fleetmcp: first tick, " + std::to_string(registry_.size()) +
                                     " nodes remembered; restored announces are re-verified now");
}

void FleetPlugin::drain_scanned() {
  std::vector<std::pair<std::string, std::string>> scanned;
  {
    std::lock_guard<std::mutex> lock(scanned_mutex_);
    scanned.swap(scanned_);
  }
  const int64_t now = clock_();
  for (const auto& [topic_text, payload] : scanned) {
    const auto topic = parse_devices_topic(topic_text);
    if (!topic || !is_node_id(topic->node_id) || payload.empty()) continue;
    const NodeRecord* node = registry_.find(topic->node_id);
    if (topic->kind == DeviceLeaf::kAnnounce) {
      const bool current = node != nullptr && node->manifest_fresh(now) &&
                           node->manifest->payload_digest == blake3_256(payload);
      if (!current) verify_restored(topic->node_id, payload);
    } else if (topic->kind == DeviceLeaf::kStatus && node == nullptr) {
      // A status nobody can explain (its node is unknown to the state file): remove it.
      broker_.publish("", topic_text, "", 1, true);
      audit({.caller = "plugin", .topic = topic_text, .node_id = topic->node_id, .decision = "clear",
             .reason = "restored status of an unknown node"});
    }
  }
}

void FleetPlugin::sweep_expired(int64_t now_ms) {
  for (NodeRecord* node : registry_.take_expired(now_ms)) {
    if (!node->manifest || node->manifest_expired || node->manifest->expires_at_ms > now_ms) continue;
    node->manifest_expired = true;
    clear_announce(node->node_id);
    bump(counters_.manifests_expired);
    audit({.caller = "plugin", .tenant = node->tenant, .topic = devices_topic(node->node_id, DeviceLeaf::kAnnounce),
           .node_id = node->node_id, .decision = "expire", .code = "E_MANIFEST_INVALID",
           .reason = "manifest passed expires_at_ms"});
    refresh_status(*node);
    node_went_offline(node->node_id);
  }
}

void FleetPlugin::sweep_tokens(int64_t now_ms) {
  if (now_ms - last_token_sweep_ms_ < kTokenSweepIntervalMs) return;
  last_token_sweep_ms_ = now_ms;
  sessions_.for_each([&](const void* handle, Session& session) {
    if (session.principal && token_expired(*session.principal)) queue_kick(handle, session, "agent token expired");
  });
}

void FleetPlugin::sweep_claims(int64_t now_ms) {
  if (now_ms - last_claim_sweep_ms_ < kClaimSweepIntervalMs) return;
  last_claim_sweep_ms_ = now_ms;
  claims_.forget_expired(now_ms);
}

void FleetPlugin::run_kicks() {
  const uint64_t tick = ticks();
  const auto due = std::partition(kicks_.begin(), kicks_.end(), [&](const auto& k) { return k.due_tick > tick; });
  for (auto it = due; it != kicks_.end(); ++it) {
    // mosquitto kicks by client id: skip it when that connection already left, so a new
    // connection under the same id is not hit.
    const Session* session = sessions_.find(it->handle, it->client_id);
    if (session == nullptr || session->ended) continue;
    broker_.kick(it->client_id);
    bump(counters_.clients_kicked);
  }
  kicks_.erase(due, kicks_.end());
}

void FleetPlugin::on_disconnect(const ClientView& client) {
  claims_.disconnected(client.id, client.handle, clock_());
  if (bridges_.count(client.handle) != 0) {
    bridge_went_down(client.handle);
    sessions_.end(client.handle);
    return;  // never a node: a bridge's certificate is the other broker's
  }
  // A node that never made an ACL check is identified now, while its TLS session still exists:
  // mosquitto sends its Will right after this event, and the Will is checked like a publish.
  if (!client.id.empty() && sessions_.find(client.handle, client.id) == nullptr) {
    if (auto cert = broker_.client_certificate(client.handle)) identify_node(client, *cert);
  }
  Session* session = sessions_.end(client.handle);
  if (session == nullptr || !session->principal || session->principal->kind != PrincipalKind::kNode) return;
  NodeRecord* node = registry_.find(session->principal->name);
  if (node == nullptr || node->session != client.handle) return;  // a newer connection took over
  node->session = nullptr;
  refresh_status(*node);
  fail_calls_of(node->node_id, ErrorCode::kNodeOffline);
  node_went_offline(node->node_id);
}

void FleetPlugin::on_reload() {
  // Fails closed: a file that went missing keeps the previous list.
  auto reloaded = options_.revocation_file.empty()
                      ? Result<RevocationList>(RevocationList())
                      : RevocationList::load(options_.revocation_file, /*missing_is_empty=*/false);
  if (reloaded) {
    revoked_ = std::make_shared<const RevocationList>(std::move(*reloaded));
    identity_.set_revocations(revoked_);
    announces_.set_revocations(revoked_);
    apply_revocations();
    if (observer_ != nullptr) observer_->revocations_reloaded(revoked_);
  } else {
    broker_.log(LogLevel::kError, "fleetmcp: revocation list not reloaded, keeping the previous one: " +
                                      reloaded.error().summary());
  }
  try {
    acl_ = TopicAcl::load(options_.acl_file);
  } catch (const Error& e) {
    broker_.log(LogLevel::kError, "fleetmcp: topic policy not reloaded, keeping the previous one: " +
                                      std::string(e.what()));
  }
  try {
    audit_->reopen();
  } catch (const Error& e) {
    broker_.log(LogLevel::kError, std::string("fleetmcp: ") + e.what());
  }
  broker_.log(LogLevel::kNotice, "fleetmcp: reloaded, " + std::to_string(revoked_->size()) +
                                     " revocations, " + std::to_string(acl_.size()) + " policy rules");
}

// Revoked nodes: kicked, announce cleared, status revoked, calls failed. Revoked agents: kicked
// (mosquitto's own re-run of BASIC_AUTH after SIGHUP refuses them as well).
void FleetPlugin::apply_revocations() {
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
      fail_calls_of(node.node_id, ErrorCode::kNodeOffline);
      audit({.caller = "plugin", .tenant = node.tenant, .node_id = node.node_id, .decision = "revoke"});
      node_went_offline(node.node_id);
    }
    refresh_status(node);
  });
  sessions_.for_each([&](const void* handle, Session& session) {
    if (!session.principal || identity_.still_trusted(*session.principal)) return;
    queue_kick(handle, session, "credentials revoked");
    session.principal.reset();
  });
}

void FleetPlugin::save_state_if_due(int64_t now_ms, bool force) {
  if (options_.state_file.empty()) return;
  if (!state_dirty_ && claims_.durable_changes() == saved_claim_changes_) return;
  if (!force && now_ms - last_state_save_ms_ < kStateSaveIntervalMs) return;
  last_state_save_ms_ = now_ms;
  try {
    const uint64_t claim_changes = claims_.durable_changes();
    save_state_file(options_.state_file, {persisted_nodes(registry_), claims_.durable()});
    state_dirty_ = false;
    saved_claim_changes_ = claim_changes;
  } catch (const Error& e) {
    broker_.log(LogLevel::kError, std::string("fleetmcp: ") + e.what());
  }
}

void FleetPlugin::load_state() {
  if (options_.state_file.empty()) return;
  const PersistedState state = load_state_file(options_.state_file);
  claims_.restore(state.client_ids);
  saved_claim_changes_ = claims_.durable_changes();
  for (const PersistedNode& p : state.nodes) {
    NodeRecord& node = registry_.get_or_create(p.node_id, p.tenant);
    if (!p.certificate_pem.empty()) {
      node.certificate = std::make_shared<const Certificate>(Certificate::from_pem(p.certificate_pem, options_.state_file).value());
    }
    node.last_issued_at_ms = p.last_issued_at_ms;
    if (!p.hw_fingerprint.empty()) node.hw_pin = HwPin{p.hw_fingerprint, p.hw_kid};
    node.remote = p.remote;  // offline until its bridge brings the owner's status
    node.revoked = revoked_->contains(p.node_id);
  }
}

}  // namespace fleetmcp::plugin
