// Stopping the real HTTP front (Beast server on loopback, its io threads) while a tool call is in
// flight: the client is answered 503 E_NODE_OFFLINE "the broker is shutting down" at once rather
// than cut off without a reply. In the plugin that is what a broker restart does to calls in
// flight (tests/integration/fault_broker_restart.sh): the broker thread that would deliver the
// device's cmd_ack is the one stopping the front, so the answer can never come.
// And a request's bearer token is checked once, whoever asks for it on the way in.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <thread>

#include "broker_plugin/http/transport/asio_scheduler.h"
#include "broker_plugin/http/front/http_front.h"
#include "tests/support/front_fixture.h"
#include "common/crypto/agent_token.h"
#include "common/base/json.h"
#include "common/ids/ulid.h"

namespace fleetmcp::http::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using namespace std::chrono_literals;

// The in-memory devices answer on their own thread, as the broker thread would.
class DeviceThread {
 public:
  DeviceThread() : thread_([this] { io_->run(); }) {}
  ~DeviceThread() {
    work_.reset();
    io_->stop();
    thread_.join();
  }
  std::shared_ptr<Scheduler> scheduler() { return std::make_shared<AsioScheduler>(io_); }  // io_ has one thread

 private:
  std::shared_ptr<asio::io_context> io_ = std::make_shared<asio::io_context>(1);
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(*io_);
  std::thread thread_;
};

std::string agent_token(const Ed25519PrivateKey& issuer) {
  AgentToken t;
  t.sub = "alice";
  t.tenant = "acme";
  t.aud = "fleetmcp";
  t.jti = new_msg_id();
  t.iat = now_ms() / 1000;
  t.exp = t.iat + 3600;
  t.scopes = {"tools:call:read_only"};
  return issue_agent_token(t, issuer).value();
}

TEST(HttpFrontShutdown, ACallInFlightIsAnsweredServiceUnavailableWhenTheFrontStops) {
  DeviceThread devices;
  MemoryFleet fleet(test_registry(), devices.scheduler(), [] { return now_ms(); });
  fleet.add_node("acme", std::string(kNode), {{"echo", "system.echo", {"invoke"}, SafetyClass::kReadOnly, {10, 4, 2000}}});
  fleet.set_silent(std::string(kNode), true);  // takes the call, never answers
  const Ed25519PrivateKey issuer = Ed25519PrivateKey::generate();
  HttpFront front(parse_front_options(front_option_set({{"http_listen", "127.0.0.1:0"}})).value(), fleet, test_registry(), issuer.public_key(),
                  CallAudit([](std::string_view) {}));
  front.start();

  asio::io_context client_io;
  beast::tcp_stream client(client_io);
  client.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), front.port()));
  bhttp::request<bhttp::string_body> req{bhttp::verb::post, "/mcp/tools/call", 11};
  req.set(bhttp::field::host, "127.0.0.1");
  req.set(bhttp::field::authorization, "Bearer " + agent_token(issuer));
  req.set(bhttp::field::content_type, "application/json");
  req.set(bhttp::field::accept, "application/json");
  req.body() = R"({"tool":"sysecho.)" + std::string(kNode) + R"(.echo.invoke","arguments":{"message":"hi"}})";
  req.prepare_payload();
  bhttp::write(client, req);
  for (int i = 0; i < 500 && fleet.calls_received() == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(fleet.calls_received(), 1u) << "the call never reached the fleet";

  std::thread stopper([&front] { front.stop(); });
  beast::flat_buffer buffer;
  bhttp::response<bhttp::string_body> res;
  beast::error_code ec = asio::error::timed_out;
  client.expires_after(10s);  // applies to asynchronous reads only
  bhttp::async_read(client, buffer, res, [&ec](beast::error_code e, size_t) { ec = e; });
  client_io.run();
  stopper.join();

  ASSERT_FALSE(ec) << "no answer, the connection ended with: " << ec.message();
  EXPECT_EQ(res.result_int(), 503u);
  const json::Document body = json::parse_strict(res.body(), ErrorCode::kInternal).value();
  EXPECT_EQ(json::get_string(body, "code").value_or(""), "E_NODE_OFFLINE");
  EXPECT_NE(json::get_string(body, "message").value_or("").find("shutting down"), std::string::npos) << res.body();
  EXPECT_FALSE(res.keep_alive());
}


// One request, one check of its bearer token (issue 34): the connection limit wants the caller's
// tenant on a connection's first request, the large-body screen wants the caller before the body
// is read, the endpoint wants the agent; all take the one verdict (ConnectionSettings::authenticate).
// Counted as the revocation lookups BearerAuth makes, one per token it checks.
bhttp::response<bhttp::string_body> round_trip(beast::tcp_stream& client, asio::io_context& client_io,
                                               bhttp::request<bhttp::string_body> req) {
  bhttp::write(client, req);
  beast::flat_buffer buffer;
  bhttp::response<bhttp::string_body> res;
  client.expires_after(10s);  // applies to asynchronous reads only
  bhttp::async_read(client, buffer, res, [](beast::error_code, size_t) {});
  client_io.restart();
  client_io.run();
  return res;
}

TEST(HttpFrontAuth, ABearerTokenIsCheckedOncePerRequest) {
  DeviceThread devices;
  MemoryFleet fleet(test_registry(), devices.scheduler(), [] { return now_ms(); });
  const Ed25519PrivateKey issuer = Ed25519PrivateKey::generate();
  HttpFront front(parse_front_options(front_option_set({{"http_listen", "127.0.0.1:0"}})).value(), fleet, test_registry(), issuer.public_key(),
                  CallAudit([](std::string_view) {}));
  front.start();
  const std::string token = agent_token(issuer);
  const auto ping = [&](size_t padding) {
    bhttp::request<bhttp::string_body> req{bhttp::verb::post, "/mcp", 11};
    req.set(bhttp::field::host, "127.0.0.1");
    req.set(bhttp::field::authorization, "Bearer " + token);
    req.set(bhttp::field::content_type, "application/json");
    req.set(bhttp::field::accept, "application/json, text/event-stream");
    req.body() = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" + std::string(padding, 'x') + "\"}}";
    req.prepare_payload();
    return req;
  };
  // A small request, a large one (over the 16 KiB screen), each the first of its connection, and
  // a second small one on a connection whose token the limit knows already.
  for (const size_t padding : {size_t{0}, size_t{20000}}) {
    asio::io_context client_io;
    beast::tcp_stream client(client_io);
    client.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), front.port()));
    for (int request = 0; request < 2; ++request) {
      const size_t before = fleet.revocation_checks();
      const auto res = round_trip(client, client_io, ping(padding));
      EXPECT_EQ(res.result_int(), 400u) << res.body();  // past the token: no MCP session
      EXPECT_EQ(fleet.revocation_checks() - before, 1u) << "body of " << padding << " bytes, request " << request;
    }
  }
  front.stop();
}

}  // namespace
}  // namespace fleetmcp::http::testing
