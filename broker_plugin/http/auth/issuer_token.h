// An external issuer's JWT access token (RFC 9068 profile, docs/authorization.md) checked into the
// same AgentToken a fleetctl token becomes, so everything after authentication (scopes, tenant,
// revocation by jti, sessions) is the same for both.
//
// The checks, each refusal naming the one that failed and never the token: compact JWS; no key
// named by the header (jku, x5u, jwk, x5c: keys come only from the issuer's own JWKS); no crit;
// a key of the issuer by kid; the header's alg equal to that key's algorithm (so "none" and HS256
// never verify); the signature; iss; exp and nbf with docs/protocol.md §2's 30 s leeway, iat not in
// the future; aud naming this resource (RFC 8707); the subject, tenant and scopes of the mapping.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "broker_plugin/http/auth/jwks.h"
#include "broker_plugin/http/auth/trusted_issuer.h"
#include "common/base/result.h"
#include "common/crypto/agent_token.h"
#include "common/crypto/compact_jws.h"

namespace fleetmcp::http {

inline constexpr int64_t kIssuerTokenLeewayS = 30;  // docs/protocol.md §2, as for fleetctl tokens
inline constexpr size_t kMaxIssuerTokenBytes = jws::kMaxTokenBytes;

// The issuer's key with this kid (and, without a kid, the one key of this alg), or why not:
// unknown kid, keys not fetched or expired (issuer_keys.h).
using KeyFinder = std::function<Result<VerifyKey>(std::string_view kid, std::string_view alg)>;

// The token's claims mapped by `issuer`, or E_SAFETY_DENIED "access token refused: <check>".
// `audience` is the resource URL when the issuer configures none.
Result<AgentToken> verify_issuer_token(std::string_view token, const TrustedIssuer& issuer, std::string_view audience,
                                       const KeyFinder& keys, int64_t now_s);

}  // namespace fleetmcp::http
