// An external issuer's access token: accepted with its claims mapped, and every refusal naming the
// check that failed (issuer_token.h).
#include "broker_plugin/http/auth/issuer_token.h"

#include <gtest/gtest.h>

#include "tests/support/broker_plugin/jwt_signer.h"

namespace fleetmcp::http {
namespace {

using testing::JwtSigner;

constexpr std::string_view kResource = "https://fleet.example/mcp";
constexpr int64_t kNow = 1'800'000'000;

class IssuerTokenTest : public ::testing::Test {
 protected:
  IssuerTokenTest() {
    issuer.name = "corp";
    issuer.issuer = "https://idp.example/realms/fleet";
    issuer.tenant = "acme";
    keys = *parse_jwks("{\"keys\":[" + rsa.public_jwk() + "," + ec.public_jwk() + "," + ed.public_jwk() + "]}");
  }

  // Claims of a good token, with `extra` members appended.
  static std::string claims(std::string_view extra = "", int64_t exp = kNow + 300) {
    return R"({"iss":"https://idp.example/realms/fleet","sub":"alice","aud":["https://fleet.example/mcp","account"],)"
           R"("exp":)" + std::to_string(exp) + R"(,"iat":)" + std::to_string(kNow) +
           R"(,"jti":"t-1","scope":"openid devices:read tools:call:read_only")" + std::string(extra) + "}";
  }

  Result<AgentToken> verify(const std::string& token, int64_t now = kNow) const {
    const KeyFinder finder = [this](std::string_view kid, std::string_view alg) -> Result<VerifyKey> {
      ++lookups;
      for (const auto& k : keys) {
        if (kid.empty() ? k.alg == alg : k.kid == kid) return k;
      }
      return ErrorEnvelope(ErrorCode::kSafetyDenied, "access token refused: unknown kid", "");
    };
    return verify_issuer_token(token, issuer, kResource, finder, now);
  }

  void expect_refused(const std::string& token, std::string_view why, int64_t now = kNow) const {
    const auto verdict = verify(token, now);
    ASSERT_FALSE(verdict) << why;
    EXPECT_NE(verdict.error().message.find(why), std::string::npos) << verdict.error().message;
    EXPECT_EQ(verdict.error().message.find(token.substr(0, 20)), std::string::npos);  // never the token
  }

  // One key each for the whole suite, made when first used (an RSA key takes a while to make).
  struct Signers {
    JwtSigner rsa{"RS256", "rsa-1"}, ec{"ES256", "ec-1"}, ed{"EdDSA", "ed-1"};
  };
  static const Signers& signers() {
    static const Signers made;
    return made;
  }
  const JwtSigner &rsa = signers().rsa, &ec = signers().ec, &ed = signers().ed;
  TrustedIssuer issuer;
  std::vector<VerifyKey> keys;
  mutable int lookups = 0;
};

TEST_F(IssuerTokenTest, EachAlgorithmsTokenIsAcceptedWithItsClaimsMapped) {
  for (const JwtSigner* signer : {&rsa, &ec, &ed}) {
    const auto agent = verify(signer->token(claims()));
    ASSERT_TRUE(agent) << signer->alg() << ": " << agent.error().message;
    EXPECT_EQ(agent->sub, "alice");
    EXPECT_EQ(agent->tenant, "acme");
    EXPECT_EQ(agent->jti, "t-1");
    EXPECT_EQ(agent->iss, issuer.issuer);
    EXPECT_EQ(agent->exp, kNow + 300);
    EXPECT_EQ(agent->scopes, (std::set<std::string, std::less<>>{"devices:read", "tools:call:read_only"}));
  }
}

TEST_F(IssuerTokenTest, ScopesAndTenantComeThroughTheIssuersMapping) {
  issuer.tenant.clear();
  issuer.tenant_claim = "org";
  issuer.scope_claim = "scp";
  issuer.scopes = {{"Fleet.Read", "devices:read"}, {"Fleet.Act", "tools:call:physical_actuation"}};
  const auto agent = verify(rsa.token(claims(R"(,"org":"globex","scp":["Fleet.Act","Fleet.Read","tools:call:reversible"])")));
  ASSERT_TRUE(agent) << agent.error().message;
  EXPECT_EQ(agent->tenant, "globex");
  // Our own names count only through the mapping once there is one.
  EXPECT_EQ(agent->scopes, (std::set<std::string, std::less<>>{"devices:read", "tools:call:physical_actuation"}));
  expect_refused(rsa.token(claims(R"(,"org":"Not A Tenant")")), "tenant claim org");
  expect_refused(rsa.token(claims()), "tenant claim org");
}

TEST_F(IssuerTokenTest, EachFailedCheckIsNamed) {
  const std::string good = claims();
  std::string wrong_aud = good;
  wrong_aud.replace(wrong_aud.find("https://fleet.example/mcp"), 25, "https://other.example/mcp");
  std::string wrong_iss = good;
  wrong_iss.replace(wrong_iss.find("realms/fleet"), 12, "realms/other");
  expect_refused(rsa.token(wrong_aud), "audience (aud) does not name this resource");
  expect_refused(rsa.token(wrong_iss), "issuer (iss) is not");
  expect_refused(rsa.token(claims("", kNow - 31)), "expired (exp)");
  EXPECT_TRUE(verify(rsa.token(claims("", kNow - 29))));  // within the 30 s leeway
  expect_refused(rsa.token(claims(R"(,"nbf":)" + std::to_string(kNow + 60))), "not valid yet (nbf)");
  std::string no_sub = good;
  no_sub.replace(no_sub.find(R"("sub":"alice",)"), 14, "");
  expect_refused(rsa.token(no_sub), "subject claim sub");
  std::string tampered = rsa.token(good);
  tampered[tampered.size() - 3] = tampered[tampered.size() - 3] == 'A' ? 'B' : 'A';
  expect_refused(tampered, "signature does not verify");
  expect_refused(rsa.sign(R"({"alg":"RS256","kid":"rsa-1"})", good).substr(0, 40) + "...", "not a compact JWS");
}

TEST_F(IssuerTokenTest, TheKeyNotTheHeaderChoosesTheAlgorithm) {
  const std::string payload = claims();
  // alg none, no signature at all.
  const std::string none = rsa.sign(R"({"alg":"none","kid":"rsa-1"})", payload);
  expect_refused(none.substr(0, none.rfind('.') + 1), "alg none");
  // HS256 "signed" with the RSA key's public JWK as the HMAC secret: refused before any HMAC.
  expect_refused(rsa.sign(R"({"alg":"HS256","kid":"rsa-1"})", payload), "alg HS256 is not the algorithm of the issuer's key (RS256)");
  // An ES256 header on the RSA key's kid.
  expect_refused(rsa.sign(R"({"alg":"ES256","kid":"rsa-1"})", payload), "not the algorithm of the issuer's key");
  // A key the token names itself is never fetched nor used.
  for (const std::string named : {"jku", "x5u"}) {
    lookups = 0;
    expect_refused(rsa.sign(R"({"alg":"RS256","kid":"rsa-1",")" + named + R"(":"https://evil.example/jwks"})", payload),
                   "the header names a key (" + named + ")");
    EXPECT_EQ(lookups, 0);
  }
  expect_refused(rsa.sign(R"({"alg":"RS256","kid":"rotated"})", payload), "unknown kid");
  expect_refused(rsa.sign(R"({"alg":"RS256","kid":"rsa-1","crit":["b64"]})", payload), "critical header");
}

}  // namespace
}  // namespace fleetmcp::http
