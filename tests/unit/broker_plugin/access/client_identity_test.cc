#include "broker_plugin/access/client_identity.h"

#include <gtest/gtest.h>

#include <cctype>

#include "broker_plugin/http/auth/issuer_token.h"
#include "tests/support/broker_plugin/jwt_signer.h"
#include "tests/support/test_pki.h"

namespace fleetmcp::plugin {
namespace {

using testing::TestPki;

class Identity : public ::testing::Test {
 protected:
  Identity()
      : revoked(std::make_shared<RevocationList>()),
        identity(pki.ca(), pki.issuer().public_key(), "fleetmcp", WakerCredentials::generate("fleetmcp-plugin"),
                 revoked) {}

  static std::string refusal_of(const IdentityResult& r) {
    return r ? "accepted" : r.error().reason;
  }

  TestPki pki;
  std::shared_ptr<RevocationList> revoked;
  ClientIdentity identity;
  int64_t now = now_ms();
};

TEST_F(Identity, NodeFromItsCertificate) {
  const auto node = pki.enroll("acme");
  const auto r = identity.identify_node(node->certificate, node->node_id, node->node_id, now);
  ASSERT_TRUE(r.ok()) << refusal_of(r);
  const auto& p = *r;
  EXPECT_EQ(p.kind, PrincipalKind::kNode);
  EXPECT_EQ(p.name, node->node_id);
  EXPECT_EQ(p.tenant, "acme");
  EXPECT_EQ(p.certificate->thumbprint(), node->certificate.thumbprint());
}

TEST_F(Identity, NodeRefusals) {
  const auto node = pki.enroll("acme");
  EXPECT_EQ(refusal_of(identity.identify_node(node->certificate, "other-id", node->node_id, now)),
            "certificate CN is not the MQTT username and client id (set use_identity_as_username and "
            "use_username_as_clientid on the device listener)");
  const auto bad_cn = pki.enroll("acme", {.cn = "Not+A/ULID"});
  EXPECT_EQ(refusal_of(identity.identify_node(bad_cn->certificate, "Not+A/ULID", "Not+A/ULID", now)),
            "certificate CN is not a lowercase ULID node_id");
  const auto bad_tenant = pki.enroll("Bad Tenant");
  EXPECT_EQ(refusal_of(identity.identify_node(bad_tenant->certificate, bad_tenant->node_id, bad_tenant->node_id, now)),
            "certificate O is not a tenant name");
  TestPki other;
  const auto foreign = other.enroll("acme");
  EXPECT_EQ(refusal_of(identity.identify_node(foreign->certificate, foreign->node_id, foreign->node_id, now)),
            "certificate does not chain to the fleet CA or is not valid now");
  revoked->add(node->node_id);
  EXPECT_EQ(refusal_of(identity.identify_node(node->certificate, node->node_id, node->node_id, now)),
            "node " + node->node_id + " is revoked");
}

TEST_F(Identity, AgentFromItsToken) {
  const std::string token = pki.token("claude", "acme", {"devices:read", "tools:call:read_only"}, now / 1000 + 600);
  const auto r = identity.identify_password("claude", token, "10.0.0.5", now);
  ASSERT_TRUE(r.ok()) << refusal_of(r);
  const auto& p = *r;
  EXPECT_EQ(p.kind, PrincipalKind::kAgent);
  EXPECT_EQ(p.tenant, "acme");
  EXPECT_TRUE(p.has_scopes(kScopeBitDevicesRead | kScopeBitCallReadOnly));
  EXPECT_FALSE(p.has_scopes(kScopeBitCallReversible));
  EXPECT_EQ(p.expires_at_s, now / 1000 + 600);
}

TEST_F(Identity, AgentRefusals) {
  const int64_t later = now / 1000 + 600;
  EXPECT_EQ(refusal_of(identity.identify_password("mallory", pki.token("claude", "acme", {"devices:read"}, later),
                                                  "", now)),
            "MQTT username is not the token's sub");
  EXPECT_NE(refusal_of(identity.identify_password("claude", pki.token("claude", "acme", {"devices:read"}, now / 1000 - 100),
                                                  "", now))
                .find("expired"),
            std::string::npos);
  EXPECT_NE(refusal_of(identity.identify_password(
                           "claude", pki.token("claude", "acme", {"devices:read"}, later, "elsewhere"), "", now))
                .find("audience"),
            std::string::npos);
  TestPki other;
  EXPECT_NE(refusal_of(identity.identify_password("claude", other.token("claude", "acme", {"devices:read"}, later), "",
                                                  now)),
            "accepted");
  const std::string jti = new_node_id();
  revoked->add(jti);
  EXPECT_EQ(refusal_of(identity.identify_password("claude", pki.token("claude", "acme", {"devices:read"}, later,
                                                                      "fleetmcp", jti),
                                                  "", now)),
            "agent token is revoked");
  EXPECT_EQ(refusal_of(identity.identify_password("claude", std::nullopt, "", now)), "no agent token given as password");
  EXPECT_EQ(refusal_of(identity.identify_password("", std::nullopt, "", now)), "anonymous clients are refused");
}

// An identity provider's token on the MQTT listener goes to the verifier the module wires (the
// front's); here the real one, verify_issuer_token, over one Ed25519 key of the provider.
TEST_F(Identity, AgentFromAnIdentityProvidersToken) {
  const ::fleetmcp::testing::JwtSigner idp("EdDSA", "k1");
  http::TrustedIssuer trusted;
  trusted.name = "corp";
  trusted.issuer = "https://idp.example";
  trusted.tenant = "acme";
  trusted.scopes = {{"fleet.read", "devices:read"}};
  const auto keys = *http::parse_jwks("{\"keys\":[" + idp.public_jwk() + "]}");
  int checked = 0;
  identity.set_issuer_tokens([&](std::string_view token, int64_t now_s) {
    ++checked;
    const http::KeyFinder finder = [&](std::string_view, std::string_view) -> Result<http::VerifyKey> { return keys[0]; };
    return http::verify_issuer_token(token, trusted, "https://fleet.example/mcp", finder, now_s);
  });
  const auto idp_token = [&](std::string_view aud) {
    return idp.token(R"({"iss":"https://idp.example","sub":"alice","aud":")" + std::string(aud) + R"(","exp":)" +
                     std::to_string(now / 1000 + 600) + R"(,"jti":"j-1","scope":"openid fleet.read"})");
  };
  const auto r = identity.identify_password("alice", idp_token("https://fleet.example/mcp"), "10.0.0.5", now);
  ASSERT_TRUE(r.ok()) << refusal_of(r);
  EXPECT_EQ(r->kind, PrincipalKind::kAgent);
  EXPECT_EQ(r->tenant, "acme");
  EXPECT_EQ(r->expires_at_s, now / 1000 + 600);
  EXPECT_TRUE(r->has_scopes(kScopeBitDevicesRead));
  EXPECT_FALSE(r->has_scopes(kScopeBitCallReadOnly));
  EXPECT_EQ(refusal_of(identity.identify_password("mallory", idp_token("https://fleet.example/mcp"), "", now)),
            "MQTT username is not the token's sub");
  EXPECT_EQ(refusal_of(identity.identify_password("alice", idp_token("https://other.example/mcp"), "", now)),
            "access token refused: the audience (aud) does not name this resource https://fleet.example/mcp");
  EXPECT_EQ(checked, 3);
  // fleetctl tokens (no iss) are still the core's own check.
  EXPECT_TRUE(identity.identify_password("claude", pki.token("claude", "acme", {"devices:read"}, now / 1000 + 600), "", now));
  EXPECT_EQ(checked, 3);
}

TEST_F(Identity, WakerOnlyWithItsSecretFromLoopback) {
  const auto& waker = identity.waker();
  EXPECT_EQ(waker.secret.size(), 64u);
  const auto r = identity.identify_password(waker.username, waker.secret, "127.0.0.1", now);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, PrincipalKind::kPlugin);
  EXPECT_EQ(refusal_of(identity.identify_password(waker.username, waker.secret, "10.1.2.3", now)),
            "the plugin's user is accepted from 127.0.0.1 only");
  EXPECT_EQ(refusal_of(identity.identify_password(waker.username, std::string(64, '0'), "127.0.0.1", now)),
            "wrong secret for the plugin's user");
  EXPECT_NE(WakerCredentials::generate("x").secret, waker.secret);
}

// Issue 17 item 1: an agent's client id is a claim on a session; it may not be a node's, the
// waker's, or anything not derived from its token's sub.
TEST_F(Identity, AgentClientIdsDeriveFromTheSub) {
  const std::string token = pki.token("claude", "acme", {"devices:read"}, now / 1000 + 600);
  const auto agent = identity.identify_password("claude", token, "10.0.0.5", now).value();
  const auto refused = [&](std::string_view id, bool could_be_assigned = true) {
    const IdentityCheck r = identity.check_client_id(agent, id, could_be_assigned);
    return r ? std::string("accepted") : r.error().reason;
  };
  EXPECT_EQ(refused("claude"), "accepted");
  EXPECT_EQ(refused("claude-session-2"), "accepted");
  EXPECT_EQ(refused("auto-5B0D6A51-0C3A-4E0C-9F55-2C1F8E0A7D11"), "accepted");  // mosquitto's, for an empty id
  EXPECT_EQ(refused(new_node_id()), "client id is a node id: only that node may connect with it");
  std::string upper = new_node_id();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(refused(upper), "client id is a node id: only that node may connect with it");
  EXPECT_EQ(refused("fleetmcp-plugin"), "client id is the plugin's own");
  const std::string not_derived =
      "client id must be the token's sub, start with \"<sub>-\", or be left empty (MQTT 5, or MQTT 3.1.1 with "
      "clean session)";
  EXPECT_EQ(refused("bridge-site-a"), not_derived);
  EXPECT_EQ(refused("claudette"), not_derived);
  EXPECT_EQ(refused("claude-"), not_derived);
  EXPECT_EQ(refused("mosq-abcdef"), not_derived);
  EXPECT_EQ(refused("auto-not-a-uuid"), not_derived);
  // Issue 24: only the exact form mosquitto makes (uppercase hex, dashes at 8-4-4-4-12), and only
  // from a client it could have made it for (MQTT 3.1.1 with clean session false never gets one).
  EXPECT_EQ(refused("auto-5b0d6a51-0c3a-4e0c-9f55-2c1f8e0a7d11"), not_derived);
  EXPECT_EQ(refused("auto-5B0D6A510-C3A-4E0C-9F55-2C1F8E0A7D11"), not_derived);
  EXPECT_EQ(refused("auto-5B0D6A51-0C3A-4E0C-9F55-2C1F8E0A7D11", /*could_be_assigned=*/false), not_derived);
  EXPECT_EQ(refused("claude-" + std::string(249, 'x')), "accepted");  // 256 bytes
  EXPECT_EQ(refused("claude-" + std::string(250, 'x')), "client id is longer than 256 bytes");
  Principal node;
  node.kind = PrincipalKind::kNode;
  EXPECT_TRUE(identity.check_client_id(node, "anything", false).ok());  // nodes: use_username_as_clientid
}

}  // namespace
}  // namespace fleetmcp::plugin
