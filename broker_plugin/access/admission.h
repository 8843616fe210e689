// Who each connected client is, and when it has to go. Agents, bridges and the waker are
// identified at BASIC_AUTH (password or token); nodes by their TLS certificate (their listener
// sets use_identity_as_username, so mosquitto never calls BASIC_AUTH for them) at their first ACL
// check, or at DISCONNECT when they made none. Admission also keeps whose each client id is
// (ClientIdClaims, issue 24), queues kicks (run on the tick, never inside a check) and kicks
// agents whose token expired or whose credentials were revoked. Broker thread only.
//
// It knows nothing of nodes beyond their identity: FleetPlugin tells Announces when a node's
// session starts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/access/client_id_claims.h"
#include "broker_plugin/access/client_identity.h"
#include "broker_plugin/access/session_table.h"
#include "broker_plugin/base/audit_trail.h"
#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/plugin_counters.h"

namespace fleetmcp::plugin {

class Admission {
 public:
  // `counters.ticks` is the broker loop's turn (FleetPlugin::on_tick advances it before calling
  // on_tick here): kicks are due by it.
  // `max_persistent_sessions`: per agent or bridge principal (plugin_opt_max_persistent_sessions_per_principal).
  Admission(ClientIdentity identity, int64_t persistent_client_expiration_ms, size_t max_persistent_sessions,
            BrokerPort& broker, const PluginClock& clock, AuditTrail& audit, PluginCounters& counters);

  // BASIC_AUTH: an agent's token, a bridge's token (and its certificate), the waker's password.
  // Also a refusal is recorded as a session, which denies every check until mosquitto disconnects
  // the client.
  Verdict basic_auth(const ClientView& client, std::optional<std::string_view> password);

  // The session recorded for this connection, or nullptr: the hot path of every ACL check.
  Session* find(const ClientView& client) { return sessions_.find(client.handle, client.id); }
  // A connection BASIC_AUTH never saw: a node, by its certificate. Always a session; without a
  // principal when refused (or when there is no certificate at all).
  Session* identify_by_certificate(const ClientView& client);
  Session* identify_node(const ClientView& client, const Certificate& cert);

  // Agents and bridges only; the clock is read only for them, keeping it off the nodes' hot path.
  bool token_expired(const Principal& who) const {
    return (who.kind == PrincipalKind::kAgent || who.kind == PrincipalKind::kBridge) && who.expires_at_s != 0 &&
           clock_() / 1000 >= who.expires_at_s;
  }
  // Kicked two ticks from now, if that very connection is still there; audited now.
  void queue_kick(const void* handle, Session& session, std::string_view reason);

  // DISCONNECT: the client id's claim ends (it may stay held while mosquitto keeps the session).
  void release_client_id(const ClientView& client);
  // Marks the session ended (a WRITE check after this is the Will); nullptr when unknown.
  Session* end(const void* handle) { return sessions_.end(handle); }

  // The tick: expired tokens and revoked credentials are kicked, claims long expired forgotten,
  // due kicks run, ended sessions dropped.
  void on_tick(int64_t now_ms);
  // SIGHUP: the new list applies to new identifications, and every session it no longer trusts
  // is kicked (mosquitto re-runs BASIC_AUTH too, but never for nodes).
  void set_revocations(std::shared_ptr<const RevocationList> revoked);

  const ClientIdentity& identity() const { return identity_; }
  void set_issuer_tokens(IssuerTokenCheck check) { identity_.set_issuer_tokens(std::move(check)); }
  ClientIdClaims& claims() { return claims_; }  // the state file keeps the durable ones

 private:
  // mosquitto would hand `client` the id another principal holds: refused (issue 24).
  IdentityCheck client_id_held_by_another(const ClientView& client, const Principal& who);
  // `client` asks for a session mosquitto would persist, and `who` holds its quota of them (issue 33).
  IdentityCheck persistent_session_over_quota(const ClientView& client, const Principal& who);
  void claim_client_id(const ClientView& client, const Principal& who);
  void run_kicks();

  ClientIdentity identity_;
  SessionTable sessions_;
  ClientIdClaims claims_;  // whose each agent's and bridge's client id is
  BrokerPort& broker_;
  const PluginClock& clock_;
  AuditTrail& audit_;
  PluginCounters& counters_;

  struct PendingKick {
    uint64_t due_tick;
    const void* handle;
    std::string client_id;
  };
  std::vector<PendingKick> kicks_;
  int64_t last_token_sweep_ms_ = 0;
  int64_t last_claim_sweep_ms_ = 0;
};

}  // namespace fleetmcp::plugin
