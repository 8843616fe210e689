// sys.<id>.metrics.subscribe over MCP through the HTTP front: progress and log notifications,
// cancel, offline, maximum time, and the stream quotas (over RFC-0009: rfc0009_endpoint_test.cc).
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

}  // namespace
}  // namespace fleetmcp::http::testing
