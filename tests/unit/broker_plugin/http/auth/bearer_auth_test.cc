// Bearer authentication, through the front's routes: 401 with the RFC 9728 challenge for no token, a bad,
// expired, wrong-audience or revoked one, and a token refused once revoked or expired.
#include <gtest/gtest.h>

#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

TEST_F(RoutesTest, NoTokenIs401WithResourceMetadataChallenge) {
  for (const std::string path : {"/mcp", "/mcp/tools/call"}) {
    const auto ex = f.send(HttpRequest{"POST", path, {{"Content-Type", "application/json"}}, "{}"});
    EXPECT_EQ(ex->reply->status, 401) << path;
    const auto challenge = header_of(*ex->reply, "WWW-Authenticate");
    ASSERT_TRUE(challenge);
    EXPECT_EQ(*challenge, "Bearer resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp\", "
                          "scope=\"tools:call:read_only\"");
  }
}

TEST_F(RoutesTest, BadExpiredWrongAudienceAndRevokedTokensAre401InvalidToken) {
  const std::string expired = f.token("acme", kAllScopes, "alice", 1);
  const std::string wrong_audience = f.token("acme", kAllScopes, "alice", 3600, "someone-else");
  const std::string revoked = f.token();
  f.fleet->revoke_token(f.last_jti);
  f.advance(std::chrono::seconds(120));
  const std::string good = f.token();
  std::string tampered = good;  // one signature character changed
  char& c = tampered[tampered.size() - 2];
  c = c == 'A' ? 'B' : 'A';
  for (const std::string& bad : {expired, wrong_audience, revoked, tampered, std::string("not-a-jwt")}) {
    const auto ex = f.post_mcp(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "", bad);
    EXPECT_EQ(ex->reply->status, 401);
    EXPECT_NE(header_of(*ex->reply, "WWW-Authenticate")->find("error=\"invalid_token\""), std::string::npos);
    EXPECT_EQ(ex->reply->body.find(bad), std::string::npos);  // never echoed
  }
  EXPECT_EQ(f.post_mcp(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "", good)->reply->status, 400);  // past auth: no session
}

// Accepted tokens are remembered (bearer_auth.h): that must not outlive their exp or a revocation.
TEST_F(RoutesTest, AnAcceptedTokenIsRefusedOnceRevokedOrExpired) {
  const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  const std::string short_lived = f.token("acme", kAllScopes, "alice", 60);
  const std::string revoked_later = f.token();
  const std::string revoked_jti = f.last_jti;
  for (const std::string& tok : {short_lived, revoked_later}) {
    EXPECT_EQ(f.post_mcp(ping, "", tok)->reply->status, 400);  // past auth: no session
    EXPECT_EQ(f.post_mcp(ping, "", tok)->reply->status, 400);  // and again, now remembered
  }
  f.fleet->revoke_token(revoked_jti);
  const auto revoked = f.post_mcp(ping, "", revoked_later);
  EXPECT_EQ(revoked->reply->status, 401);
  EXPECT_NE(revoked->reply->body.find("revoked"), std::string::npos);
  EXPECT_EQ(f.post_mcp(ping, "", short_lived)->reply->status, 400);
  f.advance(std::chrono::seconds(60 + 31));  // past exp and verify_agent_token's 30 s leeway
  const auto expired = f.post_mcp(ping, "", short_lived);
  EXPECT_EQ(expired->reply->status, 401);
  EXPECT_NE(expired->reply->body.find("expired"), std::string::npos);
}

}  // namespace
}  // namespace fleetmcp::http::testing
