#include "broker_plugin/access/admission.h"

#include <algorithm>

namespace fleetmcp::plugin {
namespace {

constexpr int64_t kTokenSweepIntervalMs = 1000;
constexpr int64_t kClaimSweepIntervalMs = 60'000;  // claims are kept for days; a lookup ignores expired ones

}  // namespace

Admission::Admission(ClientIdentity identity, int64_t persistent_client_expiration_ms, size_t max_persistent_sessions,
                     BrokerPort& broker, const PluginClock& clock, AuditTrail& audit, PluginCounters& counters)
    : identity_(std::move(identity)),
      claims_(persistent_client_expiration_ms, max_persistent_sessions),
      broker_(broker),
      clock_(clock),
      audit_(audit),
      counters_(counters) {}

Verdict Admission::basic_auth(const ClientView& client, std::optional<std::string_view> password) {
  IdentityResult result = identity_.identify_password(client.username, password, client.address, clock_());
  const bool identified = result.ok();
  if (identified) {
    const Principal* who = &*result;
    const std::optional<Certificate> cert =
        who->kind == PrincipalKind::kBridge ? broker_.client_certificate(client.handle) : std::nullopt;
    // mosquitto assigns an id to an MQTT 5 client that sent none, or an MQTT 3.1.1 one with clean session.
    const bool could_be_assigned =
        client.protocol_version == 5 || (client.protocol_version == 4 && client.clean_session);
    IdentityCheck admitted = identity_.check_client_id(*who, client.id, could_be_assigned);
    if (admitted) admitted = identity_.check_bridge_certificate(*who, cert ? &*cert : nullptr, clock_());
    if (admitted) admitted = client_id_held_by_another(client, *who);
    if (admitted) admitted = persistent_session_over_quota(client, *who);
    if (!admitted) result = std::move(admitted).error();
  }
  Session session;
  session.client_id = client.id;
  if (!result) {
    bump(counters_.auth_refused);
    audit_({.caller = client.username.empty() ? client.id : client.username,
            .decision = "refuse",
            .code = error_code_name(result.error().code),
            .reason = result.error().reason},
           /*caller_verified=*/identified);
    // On SIGHUP mosquitto re-runs BASIC_AUTH for connected clients and disconnects the refused;
    // until then the recorded refusal denies every check.
    sessions_.put(client.handle, std::move(session));
    return Verdict::kDeny;
  }
  const Principal& who = *result;
  bump(counters_.auth_accepted);
  audit_({.caller = who.name, .tenant = who.tenant, .decision = "accept", .reason = principal_kind_name(who.kind)});
  claim_client_id(client, who);
  session.principal = who;
  sessions_.put(client.handle, std::move(session));
  return Verdict::kAllow;
}

// mosquitto would disconnect the client holding this id once the new one is authorised, or hand
// the new one the session it left behind: a principal (kind, tenant, sub) may take neither from
// another, e.g. an agent "ops" of one tenant from the agent "ops" of another (issue 24).
IdentityCheck Admission::client_id_held_by_another(const ClientView& client, const Principal& who) {
  const auto holder = claims_.held_by_another(client.id, who, clock_());
  if (!holder) return {};
  const std::string owner = std::string(principal_kind_name(holder->owner.kind)) + " " + holder->owner.name +
                            " of tenant " + holder->owner.tenant;
  return IdentityRefusal{ErrorCode::kSafetyDenied,
                         holder->connected ? "client id is held by a connected client of another principal (" + owner + ")"
                                           : "client id belongs to a session another principal (" + owner +
                                                 ") left, which mosquitto may still keep"};
}

// Each persistent session costs mosquitto memory, a record in its persistence file and a claim in
// the state file until persistent_client_expiration (issue 33 item 4: one token made 10,000). BASIC_AUTH
// sees clean start but not an MQTT 5 session expiry (docs/platform-notes.md §M6), so the quota
// counts the clean-start-false sessions, the ones mosquitto persists. A principal frees one by
// resuming its id with a clean session.
IdentityCheck Admission::persistent_session_over_quota(const ClientView& client, const Principal& who) {
  if (client.clean_session || (who.kind != PrincipalKind::kAgent && who.kind != PrincipalKind::kBridge)) {
    return {};
  }
  if (!claims_.durable_quota_full(client.id, who, clock_())) return {};
  return IdentityRefusal{ErrorCode::kRateLimited,
                         "this principal keeps " + std::to_string(claims_.max_durable_per_owner()) +
                             " persistent sessions (plugin_opt_max_persistent_sessions_per_principal): resume one of "
                             "their client ids, or end one by connecting with it and a clean session"};
}

void Admission::claim_client_id(const ClientView& client, const Principal& who) {
  if (who.kind != PrincipalKind::kAgent && who.kind != PrincipalKind::kBridge) return;
  // MQTT 3.1.1 with clean session ends its session with its connection; anything else may leave
  // one behind, and only clean session false writes it to mosquitto's persistence file.
  const bool may_persist = client.protocol_version == 5 || !client.clean_session;
  claims_.connected(client.id, who, client.handle, may_persist, /*durable=*/!client.clean_session);
}

Session* Admission::identify_by_certificate(const ClientView& client) {
  const std::optional<Certificate> cert = broker_.client_certificate(client.handle);
  if (cert) return identify_node(client, *cert);
  // Neither BASIC_AUTH nor a certificate vouched for this connection (a delayed Will of a gone
  // session, or a listener configured without either): nothing it asks for is allowed.
  bump(counters_.auth_refused);
  audit_({.caller = client.id, .decision = "refuse", .code = "E_SAFETY_DENIED", .reason = "no identity"},
         /*caller_verified=*/false);
  Session session;
  session.client_id = client.id;
  return &sessions_.put(client.handle, std::move(session));
}

Session* Admission::identify_node(const ClientView& client, const Certificate& cert) {
  Session session;
  session.client_id = client.id;
  IdentityResult result = identity_.identify_node(cert, client.id, client.username, clock_());
  if (!result) {
    bump(counters_.auth_refused);
    audit_({.caller = client.id,
            .decision = "refuse",
            .code = error_code_name(result.error().code),
            .reason = result.error().reason},
           /*caller_verified=*/false);
    session.refusal = std::move(result).error();
    Session& refused = sessions_.put(client.handle, std::move(session));
    queue_kick(client.handle, refused, "identity refused");
    return &refused;
  }
  session.principal = std::move(result).value();
  bump(counters_.auth_accepted);
  audit_({.caller = session.principal->name, .tenant = session.principal->tenant, .decision = "accept", .reason = "node"});
  return &sessions_.put(client.handle, std::move(session));
}

void Admission::queue_kick(const void* handle, Session& session, std::string_view reason) {
  if (session.kick_queued || session.ended) return;
  session.kick_queued = true;
  // Not this tick but the next: a refused node's first publish may have queued an explanation
  // on its rejected topic, which mosquitto sends at the start of the next loop turn.
  kicks_.push_back({counters_.ticks.load(std::memory_order_relaxed) + 2, handle, session.client_id});
  const Principal* who = session.principal ? &*session.principal : nullptr;
  audit_({.caller = who ? std::string_view(who->name) : std::string_view(session.client_id),
          .tenant = who ? std::string_view(who->tenant) : std::string_view{},
          .decision = "kick",
          .reason = reason});
}

void Admission::release_client_id(const ClientView& client) { claims_.disconnected(client.id, client.handle, clock_()); }

void Admission::on_tick(int64_t now_ms) {
  if (now_ms - last_token_sweep_ms_ >= kTokenSweepIntervalMs) {
    last_token_sweep_ms_ = now_ms;
    sessions_.for_each([&](const void* handle, Session& session) {
      if (session.principal && token_expired(*session.principal)) queue_kick(handle, session, "agent token expired");
    });
  }
  if (now_ms - last_claim_sweep_ms_ >= kClaimSweepIntervalMs) {
    last_claim_sweep_ms_ = now_ms;
    claims_.forget_expired(now_ms);
  }
  run_kicks();
  sessions_.drop_ended();
}

void Admission::run_kicks() {
  const uint64_t tick = counters_.ticks.load(std::memory_order_relaxed);
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

// Revoked agents, bridges and nodes: kicked, and every check denied until then.
void Admission::set_revocations(std::shared_ptr<const RevocationList> revoked) {
  identity_.set_revocations(std::move(revoked));
  sessions_.for_each([&](const void* handle, Session& session) {
    if (!session.principal || identity_.still_trusted(*session.principal)) return;
    queue_kick(handle, session, "credentials revoked");
    session.principal.reset();
  });
}

}  // namespace fleetmcp::plugin
