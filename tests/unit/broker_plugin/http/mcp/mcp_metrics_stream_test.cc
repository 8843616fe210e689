// Streaming through the HTTP front: sys.<id>.metrics.subscribe over MCP (progress and log
// notifications, cancel, offline, maximum time) and over RFC-0009's POST /mcp/tools/call (metric
// frames, ping, close codes, Accept negotiation), plus that endpoint's unary statuses (docs/protocol.md §9).
#include <gtest/gtest.h>

#include "tests/support/front_fixture.h"

namespace fleetmcp::http::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kSubscribe = "sys." + std::string(kNode) + ".metrics.subscribe";

std::string subscribe_call(int interval_ms, std::string_view progress_token = {}) {
  std::string body = R"({"name":")" + kSubscribe + R"(","arguments":{"interval_ms":)" + std::to_string(interval_ms) + "}";
  if (!progress_token.empty()) body += R"(,"_meta":{"progressToken":")" + std::string(progress_token) + "\"}";
  return body + "}";
}

std::vector<std::string> methods(const MemoryStream& s) {
  std::vector<std::string> out;
  for (const auto& d : sse_data(s)) out.emplace_back(json::get_string(d, "method").value_or("response"));
  return out;
}

class McpStreamTest : public ::testing::Test {
 protected:
  FrontFixture f{FrontOptionList{{"http_mcp_max_stream_ms", "10000"}}};
  std::string tok = f.token();
  std::string sid = f.open_session(tok);
};

TEST_F(McpStreamTest, EachSampleIsAProgressAndALogNotification) {
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(1000, "p1"), 7);
  ASSERT_TRUE(ex->stream);
  f.advance(milliseconds(2000));
  const auto data = sse_data(*ex->stream);
  ASSERT_EQ(data.size(), 6u);  // samples at 0, 1 and 2 s
  for (size_t i = 0; i < data.size(); i += 2) {
    EXPECT_EQ(*json::get_string(data[i], "method"), "notifications/progress");
    EXPECT_EQ(*json::get_string(data[i]["params"], "progressToken"), "p1");
    EXPECT_EQ(*json::get_int64(data[i]["params"], "progress"), static_cast<int64_t>(i / 2 + 1));
    const auto sample = json::parse_strict(data[i]["params"]["message"].GetString()).value();
    EXPECT_EQ(*json::get_string(sample, "node_id"), kNode);
    EXPECT_EQ(*json::get_string(data[i + 1], "method"), "notifications/message");
    EXPECT_EQ(*json::get_string(data[i + 1]["params"], "logger"), "fleetmcp.metrics");
    EXPECT_EQ(data[i + 1]["params"]["data"], sample);
  }
  EXPECT_EQ(f.fleet->lease_calls(), 1u);
  EXPECT_EQ(f.fleet->leased_interval_ms(std::string(kNode)), 1000);
}

TEST_F(McpStreamTest, NoProgressWithoutAToken) {
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  f.advance(milliseconds(1000));
  EXPECT_EQ(methods(*ex->stream), (std::vector<std::string>{"notifications/message", "notifications/message"}));
}

TEST_F(McpStreamTest, CancelEndsTheStreamWithoutAResponseAndReleasesTheFeed) {
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(1000, "p1"), 7);
  f.advance(milliseconds(1000));
  f.post_mcp(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}})", sid, tok);
  EXPECT_TRUE(ex->stream->finished);
  EXPECT_TRUE(ex->stream->last.empty());
  for (const auto& m : methods(*ex->stream)) EXPECT_NE(m, "response");
  f.scheduler->run();
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
  EXPECT_EQ(f.fleet->watchers(std::string(kNode)), 0u);
}

TEST_F(McpStreamTest, OfflineEndsWithAnIsErrorResult) {
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  f.fleet->set_online(std::string(kNode), false);
  f.scheduler->run();
  ASSERT_TRUE(ex->stream->finished);
  const auto data = sse_data(*ex->stream);
  const auto& last = data.back();
  EXPECT_EQ(*json::get_int64(last, "id"), 7);
  EXPECT_TRUE(last["result"]["isError"].GetBool());
  EXPECT_EQ(*json::get_string(last["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_NODE_OFFLINE");
}

TEST_F(McpStreamTest, MaximumStreamTimeEndsWithTheLeaseAsResult) {
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(2000), 7);
  f.advance(milliseconds(9999));
  EXPECT_FALSE(ex->stream->finished);
  f.advance(milliseconds(1));
  ASSERT_TRUE(ex->stream->finished);
  const auto data = sse_data(*ex->stream);
  const auto& last = data.back();
  const json::Value& r = last["result"];
  EXPECT_FALSE(r["isError"].GetBool());
  EXPECT_EQ(*json::get_int64(r["structuredContent"], "interval_ms"), 2000);
  EXPECT_GT(*json::get_int64(r["structuredContent"], "lease_expires_at_ms"), f.wall_base_ms);
  EXPECT_FALSE(test_registry()->validate("mcp://schemas/system.metrics.subscribe.output@1.0.0", r["structuredContent"]));
}

TEST_F(McpStreamTest, ALogLevelAboveInfoSilencesLogNotifications) {
  f.rpc(sid, tok, "logging/setLevel", R"({"level":"warning"})");
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(1000, "p"), 7);
  f.advance(milliseconds(1000));
  EXPECT_EQ(methods(*ex->stream), (std::vector<std::string>{"notifications/progress", "notifications/progress"}));
}

// Issue 24, item 4: a stream whose session ends gets a last response, as any call does.
TEST_F(McpStreamTest, ItsSessionsEndEndsTheStreamWithAnIsErrorResult) {
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(1000, "p1"), 7);
  f.advance(milliseconds(1000));
  f.send(HttpRequest{"DELETE", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid}}, ""});
  ASSERT_TRUE(ex->stream->finished);
  const auto data = sse_data(*ex->stream);
  const auto& last = data.back();
  EXPECT_EQ(*json::get_int64(last, "id"), 7);
  EXPECT_TRUE(last["result"]["isError"].GetBool());
  const json::Value& e = last["result"]["_meta"]["io.fleetmcp/error"];
  EXPECT_EQ(*json::get_string(e, "code"), "E_NODE_OFFLINE");
  EXPECT_NE(json::get_string(e, "message")->find("the MCP session ended"), std::string::npos);
  f.scheduler->run();
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
}

TEST_F(McpStreamTest, TheFrontStoppingEndsTheStreamWithAnIsErrorResult) {
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  ex->stream->end(StreamEnd::kShutdown);  // the server stops before the sessions end
  f.scheduler->run();
  ASSERT_TRUE(ex->stream->finished);
  const auto data = sse_data(*ex->stream);
  EXPECT_EQ(*json::get_int64(data.back(), "id"), 7);
  EXPECT_NE(json::get_string(data.back()["result"]["_meta"]["io.fleetmcp/error"], "message")->find("shutting down"),
            std::string::npos);
}

// Issue 24, item 5: MCP metrics streams hold a connection as long as RFC-0009 and GET streams do,
// and count with them in the per-caller and per-tenant stream quotas.
TEST(McpStreamQuota, MetricsStreamsCountWithTheOtherStreamsPerCallerAndPerTenant) {
  FrontFixture f{FrontOptionList{{"http_max_streams_per_caller", "2"}, {"http_max_streams_per_tenant", "3"}}};
  const std::string alice = f.token(), bob = f.token("acme", kAllScopes, "bob"), carol = f.token("other");
  const std::string sid = f.open_session(alice);
  const auto first = f.rpc(sid, alice, "tools/call", subscribe_call(1000), 1);
  const auto rfc0009 = f.post_tools_call(alice, R"({"tool":")" + kSubscribe + R"(","arguments":{"interval_ms":1000}})",
                                         "text/event-stream");
  ASSERT_TRUE(first->stream);
  ASSERT_FALSE(rfc0009->stream->finished);
  f.advance(milliseconds(1000));  // the capability's rate limit (5/s) is not what refuses below
  const auto third = f.rpc(sid, alice, "tools/call", subscribe_call(1000), 3);
  ASSERT_TRUE(third->reply) << "a third stream of the caller was opened";
  const auto refused = body_of(*third);
  EXPECT_TRUE(refused["result"]["isError"].GetBool());
  const json::Value& e = refused["result"]["_meta"]["io.fleetmcp/error"];
  EXPECT_EQ(*json::get_string(e, "code"), "E_RATE_LIMITED");
  EXPECT_GT(*json::get_int64(e, "retry_after_ms"), 0);
  EXPECT_NE(json::get_string(e, "suggested_fix")->find("plugin_opt_http_max_streams_per_caller"), std::string::npos);

  const std::string bob_sid = f.open_session(bob);
  EXPECT_TRUE(f.rpc(bob_sid, bob, "tools/call", subscribe_call(1000), 1)->stream);  // the tenant's third
  EXPECT_TRUE(f.rpc(bob_sid, bob, "tools/call", subscribe_call(1000), 2)->reply);    // its fourth: refused
  const std::string carol_sid = f.open_session(carol);  // another tenant is untouched
  EXPECT_TRUE(f.send(HttpRequest{"GET", "/mcp", {{"Authorization", "Bearer " + carol}, {"Mcp-Session-Id", carol_sid},
                                                 {"Accept", "text/event-stream"}}, ""})->stream);

  // A cancelled stream gives its place back.
  f.post_mcp(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})", sid, alice);
  f.advance(milliseconds(1000));
  EXPECT_TRUE(f.rpc(sid, alice, "tools/call", subscribe_call(1000), 4)->stream);
}

TEST(McpStreamQuota, AMetricsStreamEndsWithItsToken) {
  FrontFixture f;
  const std::string tok = f.token("acme", kAllScopes, "alice", 5);
  const std::string sid = f.open_session(tok);
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  f.advance(milliseconds(4000));
  EXPECT_FALSE(ex->stream->finished);
  f.advance(milliseconds(2000));  // past exp, and the once-a-second re-check
  ASSERT_TRUE(ex->stream->finished);
  const auto data = sse_data(*ex->stream);
  const json::Value& e = data.back()["result"]["_meta"]["io.fleetmcp/error"];
  EXPECT_EQ(*json::get_string(e, "code"), "E_SAFETY_DENIED");
  EXPECT_NE(json::get_string(e, "message")->find("the token has expired"), std::string::npos);
}

class Rfc0009Test : public ::testing::Test {
 protected:
  FrontFixture f{FrontOptionList{{"http_sse_ping_ms", "25000"}}};
  std::string tok = f.token();
  std::shared_ptr<MemoryExchange> open(int interval_ms, std::string_view accept = "text/event-stream") {
    return f.post_tools_call(tok, R"({"tool":")" + kSubscribe + R"(","arguments":{"interval_ms":)" + std::to_string(interval_ms) + "}}", accept);
  }
  // Plays a client that reads promptly for `s` seconds.
  void read_for(MemoryStream& stream, int s) {
    for (int i = 0; i < s; ++i) {
      f.advance(seconds(1));
      stream.acknowledge_all();
    }
  }
};

TEST_F(Rfc0009Test, Fixture1NormalStreamThenClientClose) {
  const auto ex = open(5000);
  ASSERT_TRUE(ex->stream);
  EXPECT_EQ(ex->stream->headers[0].second, "text/event-stream; charset=utf-8");
  read_for(*ex->stream, 30);
  ex->stream->end(StreamEnd::kPeerClosed);
  std::vector<std::string> events;
  const auto data = sse_data(*ex->stream, &events);
  int metrics = 0, pings = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    if (events[i] == "metric") {
      ++metrics;
      EXPECT_FALSE(test_registry()->validate("mcp://schemas/system.metrics.subscribe.frame@1.0.0", data[i]));
    }
    if (events[i] == "ping") {
      ++pings;
      EXPECT_TRUE(data[i].IsObject() && data[i].ObjectEmpty());
    }
  }
  EXPECT_GE(metrics, 6);
  EXPECT_EQ(pings, 1);  // at 25 s
  EXPECT_EQ(events.back(), "close");
  EXPECT_EQ(ex->stream->last, "event: close\ndata: {\"code\":1000,\"reason\":\"normal\"}\n\n");
  EXPECT_TRUE(ex->stream->finished);
}

TEST_F(Rfc0009Test, FallingMoreThanThreeFramesBehindCloses4413) {
  const auto ex = open(1000);
  f.advance(seconds(2));  // frames at 0, 1, 2 s: three unread
  EXPECT_FALSE(ex->stream->finished);
  f.advance(seconds(1));
  ASSERT_TRUE(ex->stream->finished);
  EXPECT_EQ(ex->stream->last, "event: close\ndata: {\"code\":4413,\"reason\":\"backpressure\"}\n\n");
  EXPECT_FALSE(test_registry()->validate("mcp://schemas/system.metrics.subscribe.close@1.0.0",
                                         sse_data(*ex->stream).back()));
}

TEST_F(Rfc0009Test, Fixture2IdleClientCloses4408) {
  const auto ex = open(5000);
  ex->stream->end(StreamEnd::kIdle);  // what the socket stream reports after 90 s without read progress
  EXPECT_EQ(ex->stream->last, "event: close\ndata: {\"code\":4408,\"reason\":\"idle_timeout\"}\n\n");
}

TEST_F(Rfc0009Test, Fixture3DeviceOfflineCloses4503) {
  const auto ex = open(1000);
  read_for(*ex->stream, 2);
  f.fleet->set_online(std::string(kNode), false);
  f.scheduler->run();
  EXPECT_EQ(ex->stream->last, "event: close\ndata: {\"code\":4503,\"reason\":\"device_offline\"}\n\n");
  f.scheduler->run();
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
}

TEST_F(Rfc0009Test, SubscribeWithoutAskingForEventStreamIsBadRequest) {
  for (const std::string accept : {"application/json", "*/*", ""}) {
    const auto ex = open(1000, accept);
    ASSERT_TRUE(ex->reply) << accept;
    EXPECT_EQ(ex->reply->status, 400);
    EXPECT_EQ(*json::get_string(body_of(*ex), "code"), "E_BAD_REQUEST");
  }
  EXPECT_EQ(f.fleet->lease_calls(), 0u);
}

TEST_F(Rfc0009Test, OneDeviceStreamFeedsEverySubscriberAtItsOwnInterval) {
  const auto fast = open(1000);
  const auto slow = open(5000);
  read_for(*fast->stream, 1);
  slow->stream->acknowledge_all();
  for (int i = 0; i < 10; ++i) {
    f.advance(seconds(1));
    fast->stream->acknowledge_all();
    slow->stream->acknowledge_all();
  }
  auto count = [](const MemoryStream& s) {
    std::vector<std::string> events;
    sse_data(s, &events);
    return std::count(events.begin(), events.end(), "metric");
  };
  EXPECT_EQ(count(*fast->stream), 12);  // 0..11 s
  EXPECT_EQ(count(*slow->stream), 3);   // 0, 5, 10 s
  EXPECT_EQ(f.fleet->leased_interval_ms(std::string(kNode)), 1000);
  EXPECT_EQ(f.fleet->watchers(std::string(kNode)), 1u);
}

TEST_F(Rfc0009Test, UnaryToolsAnswerTheResultOrTheEnvelopeWithDesignStatuses) {
  const std::string echo = "sysecho." + std::string(kNode) + ".echo.invoke";
  const auto ok = f.post_tools_call(tok, R"({"tool":")" + echo + R"(","arguments":{"message":"ping"}})");
  EXPECT_EQ(ok->reply->status, 200);
  EXPECT_EQ(*json::get_string(body_of(*ok), "message"), "ping");

  auto status_and_code = [&](const std::string& bearer, const std::string& body) {
    const auto ex = f.post_tools_call(bearer, body);
    return std::make_pair(ex->reply->status, std::string(*json::get_string(body_of(*ex), "code")));
  };
  EXPECT_EQ(status_and_code(tok, R"({"tool":"sysecho.)" + std::string(kOther) + R"(.echo.invoke","arguments":{"message":"x"}})"),
            std::make_pair(404, std::string("E_MANIFEST_NOT_FOUND")));
  EXPECT_EQ(status_and_code(tok, R"({"tool":")" + echo + R"(","arguments":{}})"), std::make_pair(400, std::string("E_MANIFEST_INVALID")));
  EXPECT_EQ(status_and_code(tok, R"({"tool":")" + echo + R"(","extra":1})"), std::make_pair(400, std::string("E_BAD_REQUEST")));
  EXPECT_EQ(status_and_code(f.token("acme", "devices:read"), R"({"tool":")" + echo + R"(","arguments":{"message":"x"}})"),
            std::make_pair(403, std::string("E_SAFETY_DENIED")));
  const std::string relay_get = R"({"tool":"relay.)" + std::string(kNode) + R"(.relay0.get","arguments":{}})";
  f.post_tools_call(tok, relay_get);
  f.post_tools_call(tok, relay_get);
  const auto limited = f.post_tools_call(tok, relay_get);
  EXPECT_EQ(limited->reply->status, 429);
  EXPECT_EQ(*header_of(*limited->reply, "Retry-After"), "1");
  f.fleet->set_online(std::string(kNode2), false);
  EXPECT_EQ(status_and_code(tok, R"({"tool":"sysecho.)" + std::string(kNode2) + R"(.echo.invoke","arguments":{"message":"x"}})"),
            std::make_pair(503, std::string("E_NODE_OFFLINE")));
  f.fleet->set_silent(std::string(kNode), true);
  const auto slow = f.post_tools_call(tok, R"({"tool":")" + echo + R"(","arguments":{"message":"x"}})");
  f.advance(seconds(5));
  EXPECT_EQ(slow->reply->status, 504);
}

}  // namespace
}  // namespace fleetmcp::http::testing
