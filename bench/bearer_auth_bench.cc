// What an agent's bearer token costs the HTTP front per request (docs/performance.md "Sign-in
// cost"): BearerAuth::authenticate with an identity provider's JWT access token (ES256, RS256)
// against the same with a fleetctl token, measured in the same run. Every token is verified once
// and then remembered until its exp (bearer_auth.h), so the steady state is the lookup; the first
// verification of each kind is measured too. The issuer's keys come through IssuerKeys from an
// in-memory "server" (no network): what the fetcher thread would hold once it has fetched them.
#include <chrono>
#include <memory>
#include <string>
#include <cstdio>
#include <thread>

#include "bench/harness.h"
#include "broker_plugin/http/auth/bearer_auth.h"
#include "broker_plugin/http/auth/issuer_token.h"
#include "common/registry/schema_registry.h"
#include "tests/support/broker_plugin/jwt_signer.h"
#include "tests/support/manual_scheduler.h"
#include "tests/support/memory_fleet.h"
#include "tests/support/test_pki.h"

namespace {

using namespace fleetmcp;
using namespace fleetmcp::http;

constexpr std::string_view kIssuer = "http://127.0.0.1:1";
constexpr std::string_view kResource = "https://fleet.example/mcp";

int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The claims an identity provider puts in an access token (RFC 9068), about as many as Keycloak's.
std::string idp_claims(int64_t now) {
  return R"({"iss":")" + std::string(kIssuer) + R"(","sub":"f3b1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d","aud":")" +
         std::string(kResource) + R"(","exp":)" + std::to_string(now + 3600) + R"(,"iat":)" + std::to_string(now) +
         R"(,"jti":"0f6a1b2c-3d4e-5f60-7182-93a4b5c6d7e8","client_id":"vscode","scope":"openid devices:read )"
         R"(tools:call:read_only tools:call:reversible"})";
}

}  // namespace

int main(int argc, char** argv) {
  bench::Harness h("bearer_auth", argc, argv);
  const int64_t now = now_s();
  const fleetmcp::testing::TestPki pki;
  const fleetmcp::testing::JwtSigner es("ES256", "es-1"), rs("RS256", "rs-1");

  TrustedIssuer issuer;
  issuer.name = "corp";
  issuer.issuer = std::string(kIssuer);
  issuer.tenant = "acme";
  const std::string jwks = "{\"keys\":[" + es.public_jwk() + "," + rs.public_jwk() + "]}";
  const IssuerKeys::Fetch serve = [&](const std::string& url, const std::atomic<bool>*) -> Result<std::string> {
    if (url.ends_with("/jwks")) return jwks;
    return R"({"issuer":")" + std::string(kIssuer) + R"(","jwks_uri":")" + std::string(kIssuer) + R"(/jwks"})";
  };
  const IssuerKeys keys({issuer}, serve, now_s, {});
  const TrustedIssuer& trusted = keys.issuers().front();
  while (!keys.key(trusted, "es-1", "ES256")) std::this_thread::sleep_for(std::chrono::milliseconds(10));

  auto fleet = std::make_shared<http::testing::MemoryFleet>(SchemaRegistry::load(SchemaRegistry::default_dir()),
                                             std::make_shared<http::testing::ManualScheduler>(), [] { return now_s() * 1000; });
  const BearerAuth auth(pki.issuer().public_key(), "fleetmcp", *fleet, &keys, std::string(kResource));

  const std::string fleetctl = pki.token("claude", "acme", {"devices:read", "tools:call:read_only"}, now + 3600);
  const std::string es_token = es.token(idp_claims(now)), rs_token = rs.token(idp_claims(now));
  const auto header = [](const std::string& token) { return "Bearer " + token; };
  const std::string fleetctl_header = header(fleetctl), es_header = header(es_token), rs_header = header(rs_token);
  for (const auto* h2 : {&fleetctl_header, &es_header, &rs_header}) {
    if (!auth.authenticate(*h2, now)) {
      std::fprintf(stderr, "bearer_auth_bench: a token was refused\n");
      return 1;
    }
  }

  // Per request, once remembered.
  h.run("fleetctl token, remembered", [&] { bench::keep(auth.authenticate(fleetctl_header, now_s())); });
  h.run("IdP ES256 token, remembered", [&] { bench::keep(auth.authenticate(es_header, now_s())); },
        {.baseline = "fleetctl token, remembered"});
  h.run("IdP RS256 token, remembered", [&] { bench::keep(auth.authenticate(rs_header, now_s())); },
        {.baseline = "fleetctl token, remembered"});
  h.expect_ratio("IdP ES256 token, remembered", 0.9);
  h.expect_ratio("IdP RS256 token, remembered", 0.9);

  // The first request with each token: the full verification.
  const KeyFinder finder = [&](std::string_view kid, std::string_view alg) { return keys.key(trusted, kid, alg); };
  h.run("fleetctl token, verified", [&] { bench::keep(verify_agent_token(fleetctl, pki.issuer().public_key(), "fleetmcp", now)); });
  h.run("IdP ES256 token, verified", [&] { bench::keep(verify_issuer_token(es_token, trusted, kResource, finder, now)); },
        {.baseline = "fleetctl token, verified"});
  h.run("IdP RS256 token, verified", [&] { bench::keep(verify_issuer_token(rs_token, trusted, kResource, finder, now)); },
        {.baseline = "fleetctl token, verified"});
  return h.finish();
}
