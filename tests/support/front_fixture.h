// A FrontHandler over an in-memory fleet, driven by hand, for the unit tests: requests go in as
// in-memory exchanges, every scheduler is one ManualScheduler (the tests decide when time passes),
// and tokens are signed by a key made for the test. Three nodes: kNode (acme: echo, metrics,
// relay0 as physical actuation), kNode2 (acme: echo) and kOther (tenant "other": echo).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker_plugin/http/front/front_handler.h"
#include "tests/support/manual_scheduler.h"
#include "tests/support/memory_exchange.h"
#include "tests/support/memory_fleet.h"
#include "common/crypto/ed25519.h"

namespace fleetmcp::http::testing {

inline constexpr std::string_view kNode = "01hzx9k3m4p7q8r9s0t1v2w3xy";
inline constexpr std::string_view kNode2 = "01hzx9k3m4p7q8r9s0t1v2w3xa";
inline constexpr std::string_view kOther = "01hzx9k3m4p7q8r9s0t1v2w3xz";
inline constexpr std::string_view kAllScopes =
    "devices:read tools:call:read_only tools:call:reversible tools:call:physical_actuation";

// The real schemas/ plus test.relay, written once per test process.
std::shared_ptr<const SchemaRegistry> test_registry();

class FrontFixture {
 public:
  explicit FrontFixture(FrontOptionList options = {});
  ~FrontFixture();

  std::string token(std::string_view tenant = "acme", std::string_view scopes = kAllScopes,
                    std::string_view sub = "alice", int64_t ttl_s = 3600, std::string_view aud = "fleetmcp");

  // Hands the request to the front and runs everything that is ready.
  std::shared_ptr<MemoryExchange> send(HttpRequest request);
  std::shared_ptr<MemoryExchange> post_mcp(const std::string& body, const std::string& session,
                                           const std::string& bearer, std::vector<Header> extra = {});
  // initialize + notifications/initialized; returns the Mcp-Session-Id.
  std::string open_session(const std::string& bearer, std::string_view version = "2025-11-25");
  // One request in a session; returns the exchange (reply parsed by the caller).
  std::shared_ptr<MemoryExchange> rpc(const std::string& session, const std::string& bearer, std::string_view method,
                                      std::string_view params_json, int id = 1);
  std::shared_ptr<MemoryExchange> post_tools_call(const std::string& bearer, const std::string& body,
                                                  std::string_view accept = "application/json");
  void advance(std::chrono::milliseconds by) { scheduler->advance(by); }

  std::shared_ptr<ManualScheduler> scheduler = std::make_shared<ManualScheduler>();
  std::shared_ptr<std::vector<std::string>> audit = std::make_shared<std::vector<std::string>>();
  std::unique_ptr<MemoryFleet> fleet;
  std::unique_ptr<FrontHandler> front;
  int64_t wall_base_ms;
  std::string last_jti;  // of the last token()
  std::vector<std::shared_ptr<MemoryExchange>> exchanges;  // streams still open at the end get kShutdown

 private:
  Ed25519PrivateKey issuer_ = Ed25519PrivateKey::generate();
};

// The reply body parsed; fails the test (throws) when there is none.
json::Document body_of(const MemoryExchange& exchange);
std::optional<std::string> header_of(const HttpReply& reply, std::string_view name);
// The JSON of each SSE "data:" line written to a stream, in order (event types in `events`).
std::vector<json::Document> sse_data(const MemoryStream& stream, std::vector<std::string>* events = nullptr);

}  // namespace fleetmcp::http::testing
