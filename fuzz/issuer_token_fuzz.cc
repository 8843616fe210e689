// fuzz_issuer_token: an external issuer's access token (docs/authorization.md) as an
// unauthenticated client sends it, and the key set an identity provider serves.
// - An input starting with '{' is a JWKS document (parse_jwks: what the key fetcher reads).
// - An input containing a '.' is verified as it is.
// - Any other input is taken as the claims JSON and signed with the issuer's Ed25519 key first,
//   so the checks after the signature (iss, exp/nbf, aud, subject, tenant, scopes) see
//   fuzzer-chosen content too.
#include <string>

#include "broker_plugin/http/auth/issuer_token.h"
#include "common/base/bytes.h"
#include "common/crypto/ed25519.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;
using namespace fleetmcp::http;

namespace {

const Ed25519PrivateKey& signer() {
  static const auto* key = new Ed25519PrivateKey(Ed25519PrivateKey::generate());
  return *key;
}

// The signer's public key as the IdP would serve it, through the same parser as a fetched set.
const VerifyKey& issuer_key() {
  static const auto* key = [] {
    const std::string jwks = R"({"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","x":")" +
                             base64url_encode(signer().public_key()) + R"("}]})";
    auto keys = parse_jwks(jwks);
    return new VerifyKey(keys->front());
  }();
  return *key;
}

const TrustedIssuer& issuer() {
  static const auto* trusted = [] {
    auto* t = new TrustedIssuer;
    t->name = "idp";
    t->issuer = "https://idp.example";
    t->tenant = "t1";
    t->scopes = {{"fleet.read", "devices:read"}};
    return t;
  }();
  return *trusted;
}

std::string signed_token(std::string_view claims) {
  const std::string header = base64url_encode(as_bytes(R"({"alg":"EdDSA","typ":"at+jwt","kid":"k1"})"));
  const std::string signing_input = header + "." + base64url_encode(as_bytes(claims));
  return signing_input + "." + base64url_encode(signer().sign(signing_input));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  // A refusal is a value; anything thrown escapes to libFuzzer as a crash.
  if (!text.empty() && text.front() == '{' && text.find("\"keys\"") != std::string_view::npos) {
    (void)parse_jwks(text);
    return 0;
  }
  const std::string token = text.find('.') == std::string_view::npos ? signed_token(text) : std::string(text);
  const KeyFinder keys = [](std::string_view kid, std::string_view) -> Result<VerifyKey> {
    if (kid == issuer_key().kid) return issuer_key();
    return ErrorEnvelope(ErrorCode::kSafetyDenied, "unknown kid", "");
  };
  (void)jws::unverified_issuer(token);
  // A fixed clock keeps runs reproducible; 1.8e9 s is in 2027.
  (void)verify_issuer_token(token, issuer(), "https://fleet.example/mcp", keys, 1'800'000'000);
  return 0;
}
