// What a connecting client is (docs/protocol.md §2). Four kinds are accepted, everything else is refused:
//  - a node: TLS client certificate that chains to the fleet CA, CN = a lowercase ULID node_id
//    equal to the MQTT username and client id (mosquitto's use_identity_as_username and
//    use_username_as_clientid), O = a tenant name, not revoked;
//  - an agent: username = the token's sub, password = an EdDSA agent token from the issuer key
//    (signature, exp, aud), jti not revoked; or an access token of an identity provider the HTTP
//    front trusts (docs/authorization.md), checked by the front's verifier (IssuerTokenCheck);
//  - another broker's bridge (docs/protocol.md §12): the same, with a token whose scope is fleet:bridge;
//  - the plugin's own loopback waker: its username, the random secret made at start, from
//    127.0.0.1 only.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "broker_plugin/access/principal.h"
#include "common/crypto/agent_token.h"
#include "common/crypto/ed25519.h"
#include "common/base/error.h"
#include "common/base/result.h"
#include "common/crypto/x509.h"

namespace fleetmcp::plugin {

struct IdentityRefusal {
  ErrorCode code = ErrorCode::kSafetyDenied;
  std::string reason;  // ASCII, for the audit log; never echoes secrets
};

using IdentityResult = Result<Principal, IdentityRefusal>;
// A check that passes, or the refusal that says why not.
using IdentityCheck = Result<void, IdentityRefusal>;

// Verifies an access token whose (unverified) iss names an external issuer: the HTTP front's
// verifier, which holds the trusted issuers and their keys (broker_plugin/http/auth/); the module
// wires it (docs/architecture.md). It answers from memory (keys fetched by the front's own
// thread), so the broker thread never waits on the network. E_SAFETY_DENIED naming the check.
using IssuerTokenCheck = std::function<Result<AgentToken>(std::string_view token, int64_t now_s)>;

struct WakerCredentials {
  std::string username;
  std::string secret;  // 64 hex characters from libsodium's randombytes
  static WakerCredentials generate(std::string username);
};

class ClientIdentity {
 public:
  ClientIdentity(Certificate ca, Ed25519PublicKey issuer, std::string audience, WakerCredentials waker,
                 std::shared_ptr<const RevocationList> revoked);

  // A client that presented a certificate on the device listener.
  IdentityResult identify_node(const Certificate& cert, std::string_view client_id, std::string_view username,
                               int64_t now_ms) const;
  // A client that sent a username and password (mosquitto's BASIC_AUTH).
  IdentityResult identify_password(std::string_view username, std::optional<std::string_view> password,
                                   std::string_view address, int64_t now_ms) const;

  // The MQTT client id an agent or bridge may connect with (issue 17): mosquitto disconnects
  // whoever holds a client id when another client connects with it, so an id is a claim on a
  // session. Accepted: the token's sub itself, "<sub>-<anything>", or, when mosquitto could have
  // assigned it (`could_be_assigned`: an MQTT 5 client, or MQTT 3.1.1 with clean session, that
  // sent no id), the form mosquitto gives such a client: "auto-" and an uppercase UUID. Refused
  // whatever the sub: a node id (a ULID), the plugin's waker id, and ids over 256 bytes.
  // The plugin cannot tell an id mosquitto assigned from one a client sent
  // in that form (2.0.11 shows plugins neither), so an id is also refused while another principal
  // holds it or its session (ClientIdClaims, Admission::basic_auth).
  IdentityCheck check_client_id(const Principal& who, std::string_view client_id, bool could_be_assigned) const;

  // A bridge (fleet:bridge token) must also present its own client certificate over mutual TLS
  // (docs/sharding.md): chaining to the fleet CA, valid now, CN = the token's sub,
  // O = fleet:bridge (fleetctl pki bridge). A stolen token alone is useless.
  IdentityCheck check_bridge_certificate(const Principal& bridge, const Certificate* cert, int64_t now_ms) const;

  // False when the principal's credentials are revoked now (nodes by node_id, agents by jti).
  bool still_trusted(const Principal& who) const;
  // Before the broker loop runs (and cleared after its callbacks are gone); empty: agents sign in
  // with fleetctl tokens only.
  void set_issuer_tokens(IssuerTokenCheck check) { issuer_tokens_ = std::move(check); }
  void set_revocations(std::shared_ptr<const RevocationList> revoked) { revoked_ = std::move(revoked); }
  const Certificate& ca() const { return ca_; }
  const Ed25519PublicKey& issuer() const { return issuer_; }
  const WakerCredentials& waker() const { return waker_; }

 private:
  IdentityResult identify_waker(std::optional<std::string_view> password, std::string_view address) const;
  IdentityResult identify_agent(std::string_view username, std::string_view token, int64_t now_ms) const;

  Certificate ca_;
  Ed25519PublicKey issuer_;
  std::string audience_;
  WakerCredentials waker_;
  std::shared_ptr<const RevocationList> revoked_;
  IssuerTokenCheck issuer_tokens_;
};

}  // namespace fleetmcp::plugin
