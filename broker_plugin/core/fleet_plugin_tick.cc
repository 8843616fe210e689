// The broker loop's housekeeping: MOSQ_EVT_TICK (at most every 100 ms, at once after a wake),
// which drives the collaborators in turn, MOSQ_EVT_DISCONNECT, MOSQ_EVT_RELOAD (SIGHUP), and the
// state file (the nodes Announces remembers, the client-id claims Admission keeps).
#include "broker_plugin/core/fleet_plugin.h"

#include <algorithm>

#include "broker_plugin/core/state_file.h"

namespace fleetmcp::plugin {
namespace {

constexpr int64_t kStateSaveIntervalMs = 5000;  // the state is small, but the broker thread writes it

std::vector<PersistedNode> persisted_nodes(const NodeRegistry& registry) {
  std::vector<PersistedNode> nodes;
  registry.for_each([&](const NodeRecord& n) {
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
  if (counters_.ticks.fetch_add(1, std::memory_order_relaxed) == 0) {
    // mosquitto restored retained messages before the plugin was loaded. Status is republished
    // for every node the state file knows; announces are re-verified as the waker's scan (or
    // any subscriber) reaches them.
    announces_.republish_status();
    broker_.log(LogLevel::kNotice, "fleetmcp: first tick, " + std::to_string(announces_.registry().size()) +
                                       " nodes remembered; restored announces are re-verified now");
  }
  announces_.start_turn();
  drain_scanned(now);
  calls_.dispatch_submitted(now);
  calls_.expire(now);
  announces_.sweep_expired(now);
  admission_.on_tick(now);
  audit_.on_tick(now);
  save_state_if_due(now, false);
  if (observer_ != nullptr) observer_->fleet_ticked(now);
}

void FleetPlugin::drain_scanned(int64_t now_ms) {
  std::vector<std::pair<std::string, std::string>> scanned;
  {
    std::lock_guard<std::mutex> lock(scanned_mutex_);
    scanned.swap(scanned_);
  }
  for (const auto& [topic, payload] : scanned) announces_.restored().scanned(topic, payload, now_ms);
}

void FleetPlugin::on_disconnect(const ClientView& client) {
  admission_.release_client_id(client);
  if (announces_.bridged().went_down(client.handle)) {
    admission_.end(client.handle);
    return;  // never a node: a bridge's certificate is the other broker's
  }
  // A node that never made an ACL check is identified now, while its TLS session still exists:
  // mosquitto sends its Will right after this event, and the Will is checked like a publish.
  if (!client.id.empty() && admission_.find(client) == nullptr) {
    if (auto cert = broker_.client_certificate(client.handle)) {
      admitted(admission_.identify_node(client, *cert), client);
    }
  }
  Session* session = admission_.end(client.handle);
  if (session == nullptr || !session->principal || session->principal->kind != PrincipalKind::kNode) return;
  announces_.node_disconnected(client.handle, session->principal->name);
}

void FleetPlugin::on_reload() {
  // Fails closed: a file that went missing keeps the previous list.
  auto reloaded = options_.revocation_file.empty()
                      ? Result<RevocationList>(RevocationList())
                      : RevocationList::load(options_.revocation_file, /*missing_is_empty=*/false);
  if (reloaded) {
    revoked_ = std::make_shared<const RevocationList>(std::move(*reloaded));
    announces_.set_revocations(revoked_);
    admission_.set_revocations(revoked_);
    if (observer_ != nullptr) observer_->revocations_reloaded(revoked_);
  } else {
    broker_.log(LogLevel::kError, "fleetmcp: revocation list not reloaded, keeping the previous one: " +
                                      reloaded.error().summary());
  }
  if (auto policy = TopicAcl::load(options_.acl_file)) {
    acl_ = std::move(policy).value();
  } else {
    broker_.log(LogLevel::kError, "fleetmcp: topic policy not reloaded, keeping the previous one: " +
                                      policy.error().summary());
  }
  if (Status reopened = audit_.log().reopen(); !reopened) {
    broker_.log(LogLevel::kError, "fleetmcp: " + reopened.error().summary());
  }
  broker_.log(LogLevel::kNotice, "fleetmcp: reloaded, " + std::to_string(revoked_->size()) +
                                     " revocations, " + std::to_string(acl_.size()) + " policy rules");
}

void FleetPlugin::save_state_if_due(int64_t now_ms, bool force) {
  if (options_.state_file.empty()) return;
  ClientIdClaims& claims = admission_.claims();
  if (!announces_.changed_since_saved() && claims.durable_changes() == saved_claim_changes_) return;
  if (!force && now_ms - last_state_save_ms_ < kStateSaveIntervalMs) return;
  last_state_save_ms_ = now_ms;
  const uint64_t claim_changes = claims.durable_changes();
  const Status saved = save_state_file(options_.state_file, {persisted_nodes(announces_.registry()), claims.durable()});
  if (!saved) {
    broker_.log(LogLevel::kError, "fleetmcp: " + saved.error().summary());
    return;
  }
  announces_.saved();
  saved_claim_changes_ = claim_changes;
}

Status FleetPlugin::load_state() {
  if (options_.state_file.empty()) return {};
  auto loaded = load_state_file(options_.state_file);
  if (!loaded) return std::move(loaded).error();
  const PersistedState& state = *loaded;
  admission_.claims().restore(state.client_ids);
  saved_claim_changes_ = admission_.claims().durable_changes();
  for (const PersistedNode& p : state.nodes) {
    NodeRecord& node = announces_.registry().get_or_create(p.node_id, p.tenant);
    if (!p.certificate_pem.empty()) {
      auto cert = Certificate::from_pem(p.certificate_pem, options_.state_file);
      if (!cert) return std::move(cert).error();
      node.certificate = std::make_shared<const Certificate>(std::move(cert).value());
    }
    node.last_issued_at_ms = p.last_issued_at_ms;
    if (!p.hw_fingerprint.empty()) node.hw_pin = HwPin{p.hw_fingerprint, p.hw_kid};
    node.remote = p.remote;  // offline until its bridge brings the owner's status
    node.revoked = revoked_->contains(p.node_id);
  }
  return {};
}

}  // namespace fleetmcp::plugin
