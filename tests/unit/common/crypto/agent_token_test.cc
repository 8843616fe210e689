#include "common/crypto/agent_token.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include "common/base/bytes.h"
#include "common/base/error.h"

namespace fleetmcp {
namespace {

constexpr int64_t kNow = 1'800'000'000;

class AgentTokenTest : public ::testing::Test {
 protected:
  Ed25519PrivateKey issuer = Ed25519PrivateKey::generate();
  AgentToken claims = [] {
    AgentToken t;
    t.sub = "secret-agent-name";
    t.tenant = "acme";
    t.aud = "fleetmcp";
    t.jti = "01jd3x0000000000000000000a";
    t.scopes = {"devices:read", "tools:call:read_only"};
    t.iat = kNow - 10;
    t.exp = kNow + 3600;
    return t;
  }();

  std::string b64(std::string_view s) { return base64url_encode(as_bytes(s)); }
  std::string sign_raw(std::string_view header, std::string_view body) {
    const std::string input = b64(header) + "." + b64(body);
    return input + "." + base64url_encode(issuer.sign(input));
  }

  // Verifies and expects refusal; returns the message so tests can check what it says.
  std::string refused(std::string_view token, int64_t now = kNow, std::string_view aud = "fleetmcp",
                      const Ed25519PublicKey* key = nullptr) {
    const auto verified = verify_agent_token(token, key ? *key : issuer.public_key(), aud, now);
    if (verified.ok()) {
      ADD_FAILURE() << "token accepted";
      return {};
    }
    EXPECT_EQ(verified.error().code, ErrorCode::kSafetyDenied);
    const std::string& msg = verified.error().message;
    EXPECT_EQ(msg.find("secret-agent-name"), std::string::npos) << "echoes the token: " << msg;
    EXPECT_EQ(msg.find("acme"), std::string::npos) << "echoes the token: " << msg;
    EXPECT_EQ(verified.error().suggested_fix.find("secret-agent-name"), std::string::npos);
    return msg;
  }
};

TEST_F(AgentTokenTest, IssuedTokenVerifiesWithEveryClaim) {
  const std::string token = issue_agent_token(claims, issuer).value();
  EXPECT_EQ(token.rfind(b64(R"({"alg":"EdDSA","typ":"JWT"})") + ".", 0), 0u);
  const AgentToken t = verify_agent_token(token, issuer.public_key(), "fleetmcp", kNow).value();
  EXPECT_EQ(t.sub, claims.sub);
  EXPECT_EQ(t.tenant, "acme");
  EXPECT_EQ(t.aud, "fleetmcp");
  EXPECT_EQ(t.jti, claims.jti);
  EXPECT_EQ(t.iat, claims.iat);
  EXPECT_EQ(t.exp, claims.exp);
  EXPECT_EQ(t.scopes, claims.scopes);
  EXPECT_TRUE(t.has_scope(kScopeCallReadOnly));
  EXPECT_FALSE(t.has_scope(kScopeCallPhysical));
  EXPECT_TRUE(verify_agent_token(token, issuer.public_key(), "", kNow).ok()) << "empty expected_aud skips the check";
}

TEST_F(AgentTokenTest, ExpiredIsRefusedAfterTheLeeway) {
  const std::string token = issue_agent_token(claims, issuer).value();
  EXPECT_TRUE(verify_agent_token(token, issuer.public_key(), "fleetmcp", claims.exp + 29, 30).ok());
  EXPECT_NE(refused(token, claims.exp + 30).find("expired"), std::string::npos);
  EXPECT_NE(refused(token, claims.exp + 100000).find("expired"), std::string::npos);
}

TEST_F(AgentTokenTest, IssuedInTheFutureIsRefused) {
  claims.iat = kNow + 120;
  claims.exp = kNow + 3600;
  EXPECT_NE(refused(issue_agent_token(claims, issuer).value()).find("future"), std::string::npos);
  claims.iat = kNow + 20;  // within the 30 s leeway: clocks differ a little
  EXPECT_TRUE(verify_agent_token(issue_agent_token(claims, issuer).value(), issuer.public_key(), "fleetmcp", kNow).ok());
}

TEST_F(AgentTokenTest, WrongAudienceIsRefused) {
  EXPECT_NE(refused(issue_agent_token(claims, issuer).value(), kNow, "other-gateway").find("audience"), std::string::npos);
}

TEST_F(AgentTokenTest, WrongKeyIsRefused) {
  const auto other = Ed25519PrivateKey::generate().public_key();
  EXPECT_NE(refused(issue_agent_token(claims, issuer).value(), kNow, "fleetmcp", &other).find("signature"), std::string::npos);
}

TEST_F(AgentTokenTest, AlgNoneAndHs256AreRefused) {
  const std::string body = b64(R"({"sub":"secret-agent-name","tenant":"acme","scope":"devices:read","aud":"fleetmcp","iat":1799999990,"exp":1800003600,"jti":"x"})");
  // alg none: unsigned token, empty signature part.
  const std::string none = b64(R"({"alg":"none","typ":"JWT"})") + "." + body + ".";
  EXPECT_NE(refused(none).find("alg"), std::string::npos);
  // HS256 keyed with the issuer's *public* key: the classic algorithm-confusion forgery.
  const std::string input = b64(R"({"alg":"HS256","typ":"JWT"})") + "." + body;
  std::array<uint8_t, crypto_auth_hmacsha256_BYTES> mac{};
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, issuer.public_key().data(), issuer.public_key().size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(input.data()), input.size());
  crypto_auth_hmacsha256_final(&st, mac.data());
  EXPECT_NE(refused(input + "." + base64url_encode(mac)).find("alg"), std::string::npos);
  // Even an Ed25519 signature does not help a header whose alg is wrong.
  EXPECT_NE(refused(sign_raw(R"({"alg":"HS256","typ":"JWT"})", R"({"sub":"secret-agent-name"})")).find("alg"),
            std::string::npos);
  EXPECT_NE(refused(sign_raw(R"({"typ":"JWT"})", "{}")).find("alg"), std::string::npos);
}

TEST_F(AgentTokenTest, TamperedClaimsAreRefused) {
  const std::string token = issue_agent_token(claims, issuer).value();
  const auto dot1 = token.find('.'), dot2 = token.rfind('.');
  AgentToken elevated = claims;
  elevated.scopes.insert("tools:call:physical_actuation");
  const std::string forged_body = issue_agent_token(elevated, Ed25519PrivateKey::generate()).value();
  const std::string forged = token.substr(0, dot1) + forged_body.substr(forged_body.find('.'), forged_body.rfind('.') - forged_body.find('.')) +
                             token.substr(dot2);
  EXPECT_NE(refused(forged).find("signature"), std::string::npos);
  // A signature re-encoded non-canonically (same bytes, different text) is not accepted either.
  std::string sig_tampered = token;
  sig_tampered.back() = sig_tampered.back() == 'A' ? 'B' : 'A';
  refused(sig_tampered);
}

TEST_F(AgentTokenTest, SignedButMalformedClaimsAreRefused) {
  const std::string header = R"({"alg":"EdDSA","typ":"JWT"})";
  // Duplicate keys: two readers could disagree on the tenant.
  refused(sign_raw(header, R"({"sub":"a","tenant":"acme","tenant":"other","scope":"devices:read","aud":"fleetmcp","iat":1799999990,"exp":1800003600,"jti":"j"})"));
  refused(sign_raw(header, R"({"sub":"a","tenant":"acme","scope":"devices:read","aud":"fleetmcp","iat":"1799999990","exp":1800003600,"jti":"j"})"));
  refused(sign_raw(header, R"({"sub":"a","tenant":"acme","scope":"devices:read","aud":"fleetmcp","iat":1799999990,"jti":"j"})"));
  // No scope claim: RFC-0009 §8's "Phase A" tolerance of scopeless tokens ended in 2026-04; every
  // token names its scopes (docs/conformance.md R9-17).
  refused(sign_raw(header, R"({"sub":"a","tenant":"acme","aud":"fleetmcp","iat":1799999990,"exp":1800003600,"jti":"j"})"));
  refused(sign_raw(header, R"(["not","an","object"])"));
  refused(sign_raw(R"({"alg":"EdDSA","crit":["exp"]})", "{}"));
}

// Issue 17 item 8: the revocation list can name only ULIDs; a token it could never name is refused.
TEST_F(AgentTokenTest, AJtiThatIsNotAUlidIsRefused) {
  const std::string header = R"({"alg":"EdDSA","typ":"JWT"})";
  const auto with_jti = [&](std::string_view jti) {
    return sign_raw(header, R"({"sub":"a","tenant":"acme","scope":"devices:read","aud":"fleetmcp","iat":1799999990,)"
                            R"("exp":1800003600,"jti":")" + std::string(jti) + R"("})");
  };
  EXPECT_NE(refused(with_jti("j")).find("jti is not a ULID"), std::string::npos);
  EXPECT_NE(refused(with_jti("01jd3x0000000000000000000a-x")).find("jti is not a ULID"), std::string::npos);
  EXPECT_EQ(verify_agent_token(with_jti("01jd3x0000000000000000000a"), issuer.public_key(), "fleetmcp", kNow)->jti,
            "01jd3x0000000000000000000a");
  EXPECT_EQ(verify_agent_token(with_jti("01JD3X0000000000000000000A"), issuer.public_key(), "fleetmcp", kNow)->jti,
            "01JD3X0000000000000000000A");
}

TEST_F(AgentTokenTest, GarbageIsRefused) {
  for (std::string_view garbage : {"", ".", "..", "a.b", "a.b.c.d", "!!!.###.$$$", "eyJ.eyJ.sig", "\xff\xfe.\x00.x"}) {
    refused(garbage);
  }
  refused(std::string(10000, 'a') + "." + "b.c");
}

TEST_F(AgentTokenTest, IssueRefusesIncompleteClaims) {
  AgentToken no_scope = claims;
  no_scope.scopes.clear();
  EXPECT_FALSE(issue_agent_token(no_scope, issuer).ok());
  AgentToken backwards = claims;
  backwards.exp = backwards.iat;
  EXPECT_FALSE(issue_agent_token(backwards, issuer).ok());
}

TEST_F(AgentTokenTest, UnverifiedSubjectReadsSubWithoutTheKey) {
  const std::string token = issue_agent_token(claims, Ed25519PrivateKey::generate()).value();  // another issuer
  EXPECT_EQ(unverified_subject(token).value(), claims.sub);
  EXPECT_FALSE(unverified_subject("not.a.token").ok());
  EXPECT_FALSE(unverified_subject("onlyonepart").ok());
}

}  // namespace
}  // namespace fleetmcp
