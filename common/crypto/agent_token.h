// Agent bearer tokens (docs/protocol.md §2): compact JWS, header {"alg":"EdDSA","typ":"JWT"}, signed by the
// fleet's issuer key; claims sub, tenant, scope (space-separated), aud, iat, exp, jti.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/crypto/ed25519.h"

namespace fleetmcp {

inline constexpr std::string_view kScopeDevicesRead = "devices:read";
inline constexpr std::string_view kScopeCallReadOnly = "tools:call:read_only";
inline constexpr std::string_view kScopeCallReversible = "tools:call:reversible";
inline constexpr std::string_view kScopeCallPhysical = "tools:call:physical_actuation";
// A broker bridge (docs/protocol.md §12), not an agent: carries every tenant's $devices/ traffic between
// plugins; refused by the HTTP front.
inline constexpr std::string_view kScopeFleetBridge = "fleet:bridge";

struct AgentToken {
  std::string sub, tenant, aud, jti;
  std::set<std::string, std::less<>> scopes;
  int64_t iat = 0, exp = 0;  // seconds since the epoch
  std::string iss;  // "" for the fleet's own tokens; an external issuer's URL (docs/authorization.md)

  bool has_scope(std::string_view scope) const { return scopes.count(scope) != 0; }
};

// A verified token as the HTTP front shares it: one per distinct token (BearerAuth remembers
// it), held by the request and by every call the request starts, so no call copies the claims.
using SharedAgentToken = std::shared_ptr<const AgentToken>;

// E_BAD_REQUEST when a claim is missing, exp is not after iat or jti is not a ULID.
Result<std::string> issue_agent_token(const AgentToken& claims, const Ed25519PrivateKey& issuer);

// Verifies signature, alg, exp (with `leeway_s`), iat not in the future, and aud == expected_aud
// (when expected_aud is non-empty). E_SAFETY_DENIED saying what is wrong; never echoes token
// contents into the message. Revocation (jti) is the caller's check.
Result<AgentToken> verify_agent_token(std::string_view token, const Ed25519PublicKey& issuer,
                              std::string_view expected_aud, int64_t now_s, int64_t leeway_s = 30);

// The "sub" claim read WITHOUT checking the signature, for a client that must name itself before
// the server verifies the token (fleetctl's MQTT username). Never a basis for a decision.
// E_SAFETY_DENIED when the token is not a compact JWS with a string sub.
Result<std::string> unverified_subject(std::string_view token);

}  // namespace fleetmcp
