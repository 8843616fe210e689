#include "broker_plugin/access/client_identity.h"

#include <sodium.h>

#include "broker_plugin/access/client_id_claims.h"
#include "common/crypto/agent_token.h"
#include "common/crypto/compact_jws.h"
#include "common/base/bytes.h"
#include "common/base/text.h"
#include "common/ids/tenant.h"
#include "common/ids/ulid.h"

namespace fleetmcp::plugin {
namespace {

IdentityRefusal refuse(ErrorCode code, std::string reason) { return {code, std::move(reason)}; }

bool equal_in_constant_time(std::string_view a, std::string_view b) {
  return a.size() == b.size() && sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace


WakerCredentials WakerCredentials::generate(std::string username) {
  if (sodium_init() < 0) throw Error(ErrorCode::kInternal, "libsodium failed to initialise", "report this as a bug");
  Bytes secret(32);
  randombytes_buf(secret.data(), secret.size());
  return {std::move(username), hex_lower(secret)};
}

ClientIdentity::ClientIdentity(Certificate ca, Ed25519PublicKey issuer, std::string audience, WakerCredentials waker,
                               std::shared_ptr<const RevocationList> revoked)
    : ca_(std::move(ca)),
      issuer_(issuer),
      audience_(std::move(audience)),
      waker_(std::move(waker)),
      revoked_(std::move(revoked)) {}

IdentityResult ClientIdentity::identify_node(const Certificate& cert, std::string_view client_id,
                                             std::string_view username, int64_t now_ms) const {
  const std::string& cn = cert.subject_cn();
  // The CN becomes part of topics; nothing but a ULID may get that far.
  if (!is_node_id(cn)) return refuse(ErrorCode::kAttestationFailed, "certificate CN is not a lowercase ULID node_id");
  if (cn != username || cn != client_id) {
    return refuse(ErrorCode::kAttestationFailed,
                  "certificate CN is not the MQTT username and client id (set use_identity_as_username and "
                  "use_username_as_clientid on the device listener)");
  }
  if (!is_tenant_name(cert.subject_o())) {
    return refuse(ErrorCode::kAttestationFailed, "certificate O is not a tenant name");
  }
  if (!cert.is_issued_by(ca_, now_ms)) {
    return refuse(ErrorCode::kAttestationFailed, "certificate does not chain to the fleet CA or is not valid now");
  }
  if (revoked_->contains(cn)) return refuse(ErrorCode::kAttestationFailed, "node " + cn + " is revoked");
  Principal p;
  p.kind = PrincipalKind::kNode;
  p.name = cn;
  p.tenant = cert.subject_o();
  p.certificate = std::make_shared<const Certificate>(cert);
  return p;
}

IdentityResult ClientIdentity::identify_password(std::string_view username, std::optional<std::string_view> password,
                                                 std::string_view address, int64_t now_ms) const {
  if (username.empty()) return refuse(ErrorCode::kSafetyDenied, "anonymous clients are refused");
  if (username == waker_.username) return identify_waker(password, address);
  if (!password || password->empty()) return refuse(ErrorCode::kSafetyDenied, "no agent token given as password");
  return identify_agent(username, *password, now_ms);
}

IdentityResult ClientIdentity::identify_waker(std::optional<std::string_view> password,
                                              std::string_view address) const {
  // Only the plugin knows the secret; the address check keeps it useless off this host anyway.
  if (address != "127.0.0.1") return refuse(ErrorCode::kSafetyDenied, "the plugin's user is accepted from 127.0.0.1 only");
  if (!password || !equal_in_constant_time(*password, waker_.secret)) {
    return refuse(ErrorCode::kSafetyDenied, "wrong secret for the plugin's user");
  }
  Principal p;
  p.kind = PrincipalKind::kPlugin;
  p.name = waker_.username;
  return p;
}

IdentityResult ClientIdentity::identify_agent(std::string_view username, std::string_view token,
                                              int64_t now_ms) const {
  // A token with an iss is an identity provider's (fleetctl tokens carry none).
  const bool external = issuer_tokens_ && jws::unverified_issuer(token).has_value();
  const auto verified =
      external ? issuer_tokens_(token, now_ms / 1000) : verify_agent_token(token, issuer_, audience_, now_ms / 1000);
  if (!verified) return refuse(ErrorCode::kSafetyDenied, verified.error().message);
  const AgentToken& t = *verified;
  if (t.sub != username) return refuse(ErrorCode::kSafetyDenied, "MQTT username is not the token's sub");
  if (!is_tenant_name(t.tenant)) return refuse(ErrorCode::kSafetyDenied, "token tenant is not a tenant name");
  if (revoked_->contains(lowercase(t.jti))) return refuse(ErrorCode::kSafetyDenied, "agent token is revoked");
  Principal p;
  // The same credential for both: a fleet:bridge token makes its holder another broker's bridge.
  p.kind = t.has_scope(kScopeFleetBridge) ? PrincipalKind::kBridge : PrincipalKind::kAgent;
  p.name = t.sub;
  p.tenant = t.tenant;
  p.expires_at_s = t.exp;
  p.jti = t.jti;
  for (const auto& scope : t.scopes) p.scopes |= scope_bit(scope).value_or(0);
  return p;
}

namespace {

// The form of the id mosquitto 2.0.11 makes for a client with an empty one (client_id_gen in
// handle_connect.c): "auto-" and 16 random bytes as uppercase hex in UUID groups, 8-4-4-4-12.
bool has_broker_assigned_form(std::string_view id) {
  constexpr std::string_view kPrefix = "auto-";
  if (!id.starts_with(kPrefix) || id.size() != kPrefix.size() + 36) return false;
  const std::string_view uuid = id.substr(kPrefix.size());
  for (size_t i = 0; i < uuid.size(); ++i) {
    const char c = uuid[i];
    const bool dash_here = i == 8 || i == 13 || i == 18 || i == 23;
    const bool upper_hex = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
    if (dash_here ? c != '-' : !upper_hex) return false;
  }
  return true;
}

}  // namespace

IdentityCheck ClientIdentity::check_client_id(const Principal& who, std::string_view client_id,
                                              bool could_be_assigned) const {
  if (who.kind != PrincipalKind::kAgent && who.kind != PrincipalKind::kBridge) return {};
  if (client_id.size() > ClientIdClaims::kMaxIdBytes) {  // the plugin may have to remember it
    return refuse(ErrorCode::kSafetyDenied, "client id is longer than 256 bytes");
  }
  if (is_node_id(lowercase(client_id))) {
    return refuse(ErrorCode::kSafetyDenied, "client id is a node id: only that node may connect with it");
  }
  if (client_id == waker_.username) return refuse(ErrorCode::kSafetyDenied, "client id is the plugin's own");
  const bool derived = client_id == who.name ||
                       (client_id.size() > who.name.size() + 1 && client_id.starts_with(who.name) &&
                        client_id[who.name.size()] == '-');
  if (derived || (could_be_assigned && has_broker_assigned_form(client_id))) return {};
  return refuse(ErrorCode::kSafetyDenied,
                "client id must be the token's sub, start with \"<sub>-\", or be left empty (MQTT 5, or MQTT 3.1.1 "
                "with clean session)");
}

IdentityCheck ClientIdentity::check_bridge_certificate(const Principal& bridge, const Certificate* cert,
                                                       int64_t now_ms) const {
  if (bridge.kind != PrincipalKind::kBridge) return {};
  if (cert == nullptr) {
    return refuse(ErrorCode::kSafetyDenied,
                  "a bridge needs its client certificate (mutual TLS) as well as its token: connect to a listener "
                  "with require_certificate true");
  }
  if (cert->subject_o() != kScopeFleetBridge || cert->subject_cn() != bridge.name) {
    return refuse(ErrorCode::kSafetyDenied, "the client certificate is not this bridge's (CN = the token's sub, "
                                            "O = fleet:bridge, from fleetctl pki bridge)");
  }
  if (!cert->is_issued_by(ca_, now_ms)) {
    return refuse(ErrorCode::kSafetyDenied, "the bridge's certificate does not chain to the fleet CA or is not valid now");
  }
  return {};
}

bool ClientIdentity::still_trusted(const Principal& who) const {
  switch (who.kind) {
    case PrincipalKind::kNode: return !revoked_->contains(who.name);
    case PrincipalKind::kAgent:
    case PrincipalKind::kBridge: return !revoked_->contains(lowercase(who.jti));
    case PrincipalKind::kPlugin: return true;
  }
  return false;
}

}  // namespace fleetmcp::plugin
