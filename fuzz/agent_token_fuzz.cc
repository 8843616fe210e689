// fuzz_agent_token: agent bearer tokens (compact JWS, docs/protocol.md §2) as an unauthenticated client
// sends them. Inputs containing a '.' are verified as they are. Any other input is taken as the
// claims JSON and signed with the issuer's key first, so the claim checks after the signature
// (types, exp, iat, aud, scope parsing) see fuzzer-chosen content too.
#include <string>

#include "common/crypto/agent_token.h"
#include "common/base/bytes.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;

namespace {

const Ed25519PrivateKey& issuer() {
  static const auto* key = new Ed25519PrivateKey(Ed25519PrivateKey::generate());
  return *key;
}

std::string signed_token(std::string_view claims) {
  const std::string header = base64url_encode(as_bytes(R"({"alg":"EdDSA","typ":"JWT"})"));
  const std::string signing_input = header + "." + base64url_encode(as_bytes(claims));
  const auto sig = issuer().sign(signing_input);
  return signing_input + "." + base64url_encode(sig);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string token = text.find('.') == std::string_view::npos ? signed_token(text) : std::string(text);
  // A fixed clock keeps runs reproducible; 1.8e9 s is in 2027.
  // A refusal is a value; anything thrown escapes to libFuzzer as a crash.
  (void)verify_agent_token(token, issuer().public_key(), "fleetmcp", 1'800'000'000);
  return 0;
}
