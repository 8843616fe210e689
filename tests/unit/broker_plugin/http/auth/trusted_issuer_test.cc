// The trusted issuers' mosquitto.conf options: several issuers, each refusal naming the line.
#include "broker_plugin/http/auth/trusted_issuer.h"

#include <gtest/gtest.h>

#include "broker_plugin/http/base/front_options.h"

namespace fleetmcp::http {
namespace {

Result<std::vector<TrustedIssuer>> parse(const FrontOptionList& pairs) {
  return parse_trusted_issuers(front_option_set(pairs));
}

TEST(TrustedIssuerTest, SeveralIssuersEachWithItsMapping) {
  const auto issuers = parse({{"http_oauth.corp.issuer", "https://idp.example/realms/fleet"},
                              {"http_oauth.corp.tenant", "acme"},
                              {"http_oauth.corp.scopes", "fleet.read=devices:read fleet.call=tools:call:read_only"},
                              {"http_oauth.lab.issuer", "http://127.0.0.1:9000"},
                              {"http_oauth.lab.tenant_claim", "org"},
                              {"http_oauth.lab.scope_claim", "scp"},
                              {"http_oauth.lab.key_lifetime_s", "60"},
                              {"http_listen", "127.0.0.1:0"}});
  ASSERT_TRUE(issuers) << issuers.error().message;
  ASSERT_EQ(issuers->size(), 2u);
  const TrustedIssuer& corp = (*issuers)[0];
  EXPECT_EQ(corp.name, "corp");
  EXPECT_EQ(corp.tenant, "acme");
  EXPECT_EQ(corp.their_scope("devices:read"), "fleet.read");
  EXPECT_EQ(corp.their_scope("tools:call:physical_actuation"), "tools:call:physical_actuation");
  const TrustedIssuer& lab = (*issuers)[1];
  EXPECT_EQ(lab.tenant_claim, "org");
  EXPECT_EQ(lab.scope_claim, "scp");
  EXPECT_EQ(lab.key_lifetime_s, 60);
  EXPECT_EQ(lab.subject_claim, "sub");
}

TEST(TrustedIssuerTest, FrontOptionsCarryThem) {
  const auto options = parse_front_options(front_option_set(
      {{"http_oauth.corp.issuer", "https://idp.example"}, {"http_oauth.corp.tenant", "acme"}}));
  ASSERT_TRUE(options) << options.error().message;
  ASSERT_EQ(options->trusted_issuers.size(), 1u);
  EXPECT_EQ(options->trusted_issuers.front().issuer, "https://idp.example");
}

TEST(TrustedIssuerTest, MistakesNameTheOption) {
  const std::pair<FrontOptionList, std::string> cases[] = {
      {{{"http_oauth.corp.tenant", "acme"}}, "plugin_opt_http_oauth.corp.issuer: is required"},
      {{{"http_oauth.corp.issuer", "http://idp.example"}, {"http_oauth.corp.tenant", "acme"}},
       "plugin_opt_http_oauth.corp.issuer: must be an https:// URL"},
      {{{"http_oauth.corp.issuer", "https://idp.example"}}, "exactly one of tenant and tenant_claim"},
      {{{"http_oauth.corp.issuer", "https://idp.example"}, {"http_oauth.corp.tenant", "acme"},
        {"http_oauth.corp.tenant_claim", "org"}},
       "exactly one of tenant and tenant_claim"},
      {{{"http_oauth.corp.issuer", "https://idp.example"}, {"http_oauth.corp.tenant", "acme"},
        {"http_oauth.corp.scopes", "admin=fleet:bridge"}},
       "'admin=fleet:bridge' is not <their scope>=<our scope>"},
      {{{"http_oauth.corp.issuer", "https://idp.example"}, {"http_oauth.corp.tenant", "acme"},
        {"http_oauth.corp.colour", "blue"}},
       "plugin_opt_http_oauth.corp.colour: unknown option"},
      {{{"http_oauth.issuer", "https://idp.example"}}, "is not plugin_opt_http_oauth.<name>.<field>"},
      {{{"http_oauth.a.issuer", "https://idp.example"}, {"http_oauth.a.tenant", "acme"},
        {"http_oauth.b.issuer", "https://idp.example"}, {"http_oauth.b.tenant", "acme"}},
       "names an issuer another group names"},
  };
  for (const auto& [pairs, message] : cases) {
    const auto issuers = parse(pairs);
    ASSERT_FALSE(issuers) << message;
    EXPECT_NE(issuers.error().message.find(message), std::string::npos) << issuers.error().message;
  }
}

}  // namespace
}  // namespace fleetmcp::http
