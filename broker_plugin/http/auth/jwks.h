// The verification keys of a JSON Web Key Set (RFC 7517), made into OpenSSL keys with OpenSSL's
// own parameter API (no key arithmetic of ours). Each key's algorithm comes from the key itself
// (RSA -> RS256, EC P-256 -> ES256, OKP Ed25519 -> EdDSA), never from a token's header, so a token
// cannot choose how it is checked (no "none", no HMAC keyed with a public key).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"

using EVP_PKEY = struct evp_pkey_st;

namespace fleetmcp::http {

struct VerifyKey {
  std::string kid;  // "" when the set gave none
  std::string alg;  // "RS256", "ES256" or "EdDSA"
  std::shared_ptr<EVP_PKEY> key;

  // Whether `signature` is this key's signature, by alg, over `signed_bytes` (JWS's
  // "<header>.<payload>"; ES256 signatures are JWS's raw r||s).
  bool verifies(std::string_view signed_bytes, std::span<const uint8_t> signature) const;
};

// The signing keys of a JWKS document. Keys for another use ("use": "enc"), of another algorithm,
// or RSA keys under 2048 bits are left out; a key that is malformed refuses the whole set.
// kBadRequest saying what is wrong.
Result<std::vector<VerifyKey>> parse_jwks(std::string_view json_text);

}  // namespace fleetmcp::http
