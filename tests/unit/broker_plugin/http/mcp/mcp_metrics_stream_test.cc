// sys.<id>.metrics.subscribe over MCP through the HTTP front: answered at once, samples as log
// notifications on the GET stream, cancel, offline, maximum time, and the stream quotas (over RFC-0009: rfc0009_endpoint_test.cc).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/front_fixture.h"

namespace fleetmcp::http::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kSubscribe = "sys." + std::string(kNode) + ".metrics.subscribe";

std::string subscribe_call(int interval_ms) {
  return R"({"name":")" + kSubscribe + R"(","arguments":{"interval_ms":)" + std::to_string(interval_ms) + "}}";
}

// The notifications/message of logger fleetmcp.metrics on a GET stream, by level.
std::vector<json::Document> metrics_messages(const MemoryStream& s, std::string_view level) {
  std::vector<json::Document> out;
  for (auto& d : sse_data(s)) {
    if (json::get_string(d, "method").value_or("") != "notifications/message") continue;
    if (json::get_string(d["params"], "logger").value_or("") != "fleetmcp.metrics") continue;
    if (json::get_string(d["params"], "level").value_or("") == level) out.push_back(std::move(d));
  }
  return out;
}

class McpStreamTest : public ::testing::Test {
 protected:
  FrontFixture f{FrontOptionList{{"http_mcp_max_stream_ms", "10000"}}};
  std::string tok = f.token();
  std::string sid = f.open_session(tok);

  std::shared_ptr<MemoryExchange> open_get() {
    return f.send(HttpRequest{"GET", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid},
                                              {"Accept", "text/event-stream"}}, ""});
  }
  // The ended envelope of the last warning on `get`.
  static std::string ended_code(const MemoryExchange& get) {
    const auto last = metrics_messages(*get.stream, "warning");
    if (last.size() != 1) return "messages: " + std::to_string(last.size());
    EXPECT_EQ(*json::get_string(last[0]["params"]["data"], "node_id"), kNode);
    return std::string(json::get_string(last[0]["params"]["data"]["ended"], "code").value_or(""));
  }
};

// Issue 37, item 2: the SDK clients time out a call after 60 s unless progress resets it (opt-in):
// the call is answered at once, saying where the samples arrive.
TEST_F(McpStreamTest, AnswersAtOnceWithTheLeaseAndWhereSamplesArrive) {
  const auto get = open_get();
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(2000), 7);
  ASSERT_TRUE(ex->reply) << "the call was not answered at once";
  EXPECT_FALSE(ex->stream);
  const auto body = body_of(*ex);
  const json::Value& r = body["result"];
  EXPECT_FALSE(r["isError"].GetBool());
  EXPECT_EQ(*json::get_int64(r["structuredContent"], "interval_ms"), 2000);
  EXPECT_EQ(*json::get_int64(r["structuredContent"], "lease_expires_at_ms"), f.wall_base_ms + 10000);
  EXPECT_FALSE(test_registry()->validate("mcp://schemas/system.metrics.subscribe.output@1.0.0", r["structuredContent"]));
  const std::string text = r["content"][0]["text"].GetString();
  EXPECT_NE(text.find("notifications/message"), std::string::npos) << text;
  EXPECT_NE(text.find("GET stream"), std::string::npos) << text;
  EXPECT_EQ(text.find("No GET stream is open"), std::string::npos) << text;
}

TEST_F(McpStreamTest, WithoutAGetStreamTheResultSaysToOpenOne) {
  const auto ex = f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  const auto body = body_of(*ex);
  EXPECT_NE(std::string(body["result"]["content"][0]["text"].GetString()).find("No GET stream is open"),
            std::string::npos);
}

TEST_F(McpStreamTest, EachSampleIsALogNotificationOnTheGetStream) {
  const auto get = open_get();
  f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  f.advance(milliseconds(2000));
  const auto samples = metrics_messages(*get->stream, "info");
  ASSERT_EQ(samples.size(), 3u);  // samples at 0, 1 and 2 s
  for (const auto& n : samples) EXPECT_EQ(*json::get_string(n["params"]["data"], "node_id"), kNode);
  EXPECT_EQ(f.fleet->lease_calls(), 1u);
  EXPECT_EQ(f.fleet->leased_interval_ms(std::string(kNode)), 1000);
}

TEST_F(McpStreamTest, CancelEndsTheSubscriptionAndReleasesTheFeed) {
  const auto get = open_get();
  f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  f.advance(milliseconds(1000));
  f.post_mcp(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}})", sid, tok);
  f.scheduler->run();
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
  EXPECT_EQ(f.fleet->watchers(std::string(kNode)), 0u);
  const size_t seen = sse_data(*get->stream).size();
  f.advance(milliseconds(3000));
  EXPECT_EQ(metrics_messages(*get->stream, "info").size(), 2u);
  EXPECT_EQ(sse_data(*get->stream).size(), seen);  // and no last message
}

TEST_F(McpStreamTest, OfflineEndsWithALastMessage) {
  const auto get = open_get();
  f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  f.fleet->set_online(std::string(kNode), false);
  f.scheduler->run();
  EXPECT_EQ(ended_code(*get), "E_NODE_OFFLINE");
}

TEST_F(McpStreamTest, MaximumStreamTimeEndsTheSubscriptionWithALastMessage) {
  const auto get = open_get();
  f.rpc(sid, tok, "tools/call", subscribe_call(2000), 7);
  f.advance(milliseconds(9999));
  EXPECT_EQ(f.front->fanout().feed_count(), 1u);
  EXPECT_TRUE(metrics_messages(*get->stream, "warning").empty());
  f.advance(milliseconds(1));
  f.scheduler->run();
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
  EXPECT_EQ(ended_code(*get), "E_DEADLINE_EXCEEDED");
}

TEST_F(McpStreamTest, ALogLevelAboveInfoSilencesSamples) {
  const auto get = open_get();
  f.rpc(sid, tok, "logging/setLevel", R"({"level":"warning"})");
  f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  f.advance(milliseconds(1000));
  EXPECT_TRUE(metrics_messages(*get->stream, "info").empty());
  EXPECT_EQ(f.front->fanout().feed_count(), 1u);
}

// Issue 24, item 4: a subscription whose session ends ends with it.
TEST_F(McpStreamTest, ItsSessionsEndEndsTheSubscription) {
  f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  f.advance(milliseconds(1000));
  f.send(HttpRequest{"DELETE", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid}}, ""});
  f.scheduler->run();
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
  EXPECT_EQ(f.fleet->watchers(std::string(kNode)), 0u);
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
  ASSERT_FALSE(body_of(*first)["result"]["isError"].GetBool());
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
  // The tenant's third, then its fourth: refused.
  EXPECT_FALSE(body_of(*f.rpc(bob_sid, bob, "tools/call", subscribe_call(1000), 1))["result"]["isError"].GetBool());
  EXPECT_TRUE(body_of(*f.rpc(bob_sid, bob, "tools/call", subscribe_call(1000), 2))["result"]["isError"].GetBool());
  const std::string carol_sid = f.open_session(carol);  // another tenant is untouched
  EXPECT_TRUE(f.send(HttpRequest{"GET", "/mcp", {{"Authorization", "Bearer " + carol}, {"Mcp-Session-Id", carol_sid},
                                                 {"Accept", "text/event-stream"}}, ""})->stream);

  // A cancelled stream gives its place back.
  f.post_mcp(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})", sid, alice);
  f.advance(milliseconds(1000));
  EXPECT_FALSE(body_of(*f.rpc(sid, alice, "tools/call", subscribe_call(1000), 4))["result"]["isError"].GetBool());
}

TEST(McpStreamQuota, AMetricsStreamEndsWithItsToken) {
  FrontFixture f;
  const std::string tok = f.token("acme", kAllScopes, "alice", 5);
  const std::string sid = f.open_session(tok);
  const auto get = f.send(HttpRequest{"GET", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid},
                                                        {"Accept", "text/event-stream"}}, ""});
  f.rpc(sid, tok, "tools/call", subscribe_call(1000), 7);
  f.advance(milliseconds(4000));
  EXPECT_TRUE(metrics_messages(*get->stream, "warning").empty());
  EXPECT_EQ(f.front->fanout().feed_count(), 1u);
  f.advance(milliseconds(2000));  // past exp, and the once-a-second re-check
  f.scheduler->run();
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
  // The GET stream ends with the same token: the audit line says why the subscription ended.
  EXPECT_TRUE(get->stream->finished);
  const auto ended = std::find_if(f.audit->begin(), f.audit->end(), [](const std::string& line) {
    return line.find(kSubscribe) != std::string::npos && line.find("E_SAFETY_DENIED") != std::string::npos;
  });
  EXPECT_NE(ended, f.audit->end());
}

}  // namespace
}  // namespace fleetmcp::http::testing
