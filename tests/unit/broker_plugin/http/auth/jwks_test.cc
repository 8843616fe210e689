// JWKS keys become OpenSSL keys whose algorithm the key decides, and verify what their private
// half signed, and nothing else.
#include "broker_plugin/http/auth/jwks.h"

#include <gtest/gtest.h>

#include "tests/support/broker_plugin/jwt_signer.h"

namespace fleetmcp::http {
namespace {

using testing::JwtSigner;

std::span<const uint8_t> signature_of(const std::string& jws, Bytes& holder) {
  holder = *base64url_decode(jws.substr(jws.rfind('.') + 1));
  return holder;
}

TEST(JwksTest, EachAlgorithmsKeyVerifiesItsOwnSignatureOnly) {
  for (const std::string alg : {"RS256", "ES256", "EdDSA"}) {
    const JwtSigner signer(alg, "k-" + alg);
    const JwtSigner other(alg, "other");
    const auto keys = parse_jwks("{\"keys\":[" + signer.public_jwk() + "]}");
    ASSERT_TRUE(keys) << keys.error().message;
    ASSERT_EQ(keys->size(), 1u);
    EXPECT_EQ(keys->front().alg, alg);
    EXPECT_EQ(keys->front().kid, "k-" + alg);
    const std::string jws = signer.token("{}");
    const std::string_view signed_bytes = std::string_view(jws).substr(0, jws.rfind('.'));
    Bytes sig;
    EXPECT_TRUE(keys->front().verifies(signed_bytes, signature_of(jws, sig))) << alg;
    EXPECT_FALSE(keys->front().verifies(std::string(signed_bytes) + "x", signature_of(jws, sig))) << alg;
    const std::string forged = other.token("{}");
    EXPECT_FALSE(keys->front().verifies(std::string_view(forged).substr(0, forged.rfind('.')), signature_of(forged, sig)))
        << alg;
  }
}

TEST(JwksTest, KeysForEncryptionOrOtherAlgorithmsAreLeftOut) {
  const JwtSigner rsa("RS256", "r");
  std::string enc = rsa.public_jwk();
  enc.insert(1, "\"use\":\"enc\",");
  std::string ps256 = rsa.public_jwk();
  ps256.insert(1, "\"alg\":\"PS256\",");
  const std::string p384 = R"({"kty":"EC","crv":"P-384","kid":"p","x":"AA","y":"AA"})";
  const std::string hmac = R"({"kty":"oct","kid":"h","k":"c2VjcmV0"})";
  const auto keys = parse_jwks("{\"keys\":[" + enc + "," + ps256 + "," + p384 + "," + hmac + "]}");
  ASSERT_TRUE(keys);
  EXPECT_TRUE(keys->empty());
}

TEST(JwksTest, MalformedKeysRefuseTheSet) {
  const JwtSigner ec("ES256", "e");
  std::string off_curve = ec.public_jwk();
  const size_t y = off_curve.find("\"y\":\"") + 5;
  off_curve[y] = off_curve[y] == 'A' ? 'B' : 'A';
  for (const std::string& bad : {std::string(R"({"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]})"),  // 24-bit RSA
                                "{\"keys\":[" + off_curve + "]}", std::string(R"({"keys":{}})"), std::string("[]"),
                                std::string(R"({"keys":[{"kty":"OKP","crv":"Ed25519","x":"AAAA"}]})")}) {
    EXPECT_FALSE(parse_jwks(bad)) << bad;
  }
}

}  // namespace
}  // namespace fleetmcp::http
