// sys.<id>.metrics.subscribe over MCP through the HTTP front: answered at once, samples as log
// notifications on the GET stream, cancel, offline, maximum time, and the stream quotas (over RFC-0009: rfc0009_endpoint_test.cc).
// The node's metrics resource (streams/metrics_uri.h), MCP 2026-07-28's way to the same samples:
// subscribed by subscriptions/listen (or a 2025 resources/subscribe), read once, and named by the
// subscribe tool's 2026-07-28 answer.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/front_test_suites.h"

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

// --- The metrics resource (MCP 2026-07-28) ---

const std::string kMetricsUri = "fleetmcp://nodes/" + std::string(kNode) + "/metrics";

std::string listen_to(const std::vector<std::string>& uris) {
  std::string list;
  for (const auto& uri : uris) list += (list.empty() ? "\"" : ",\"") + uri + "\"";
  return R"({"notifications":{"resourceSubscriptions":[)" + list + "]}}";
}

// The notifications/resources/updated on a stream, in order.
std::vector<json::Document> updates(const MemoryStream& s) {
  std::vector<json::Document> out;
  for (auto& d : sse_data(s)) {
    if (json::get_string(d, "method").value_or("") == "notifications/resources/updated") out.push_back(std::move(d));
  }
  return out;
}

// The resourceSubscriptions its acknowledgement honoured.
std::vector<std::string> honoured(const MemoryStream& s) {
  std::vector<std::string> out;
  const auto first = sse_data(s);
  if (first.empty()) return out;
  const json::Value* uris = json::find(first[0]["params"]["notifications"], "resourceSubscriptions");
  if (uris == nullptr) return out;
  for (const auto& u : uris->GetArray()) out.emplace_back(u.GetString());
  return out;
}

class McpMetricsResourceTest : public ::testing::Test {
 protected:
  FrontFixture f{FrontOptionList{{"http_mcp_max_stream_ms", "10000"}}};
  std::string tok = f.token();
};

TEST_F(McpMetricsResourceTest, TemplatesListOffersIt) {
  const auto d = body_of(*stateless(f, tok, "resources/templates/list"));
  std::vector<std::string> templates;
  for (const auto& t : d["result"]["resourceTemplates"].GetArray()) templates.emplace_back(t["uriTemplate"].GetString());
  EXPECT_NE(std::find(templates.begin(), templates.end(), "fleetmcp://nodes/{node_id}/metrics{?interval_ms,include}"),
            templates.end());
}

// Each sample is a notifications/resources/updated of the URI with the sample in its _meta: no
// read round trip, so nothing depends on which front a read would land on.
TEST_F(McpMetricsResourceTest, AListenStreamGetsEachSampleInAnUpdatedNotification) {
  const std::string uri = kMetricsUri + "?interval_ms=1000&include=cpu";
  const auto listen = stateless(f, tok, "subscriptions/listen", listen_to({uri}));
  ASSERT_TRUE(listen->stream);
  EXPECT_EQ(honoured(*listen->stream), std::vector<std::string>{uri});
  f.advance(milliseconds(2000));
  const auto samples = updates(*listen->stream);
  ASSERT_EQ(samples.size(), 3u);  // samples at 0, 1 and 2 s
  for (const auto& n : samples) {
    EXPECT_EQ(*json::get_string(n["params"], "uri"), uri);
    const json::Value& meta = n["params"]["_meta"];
    EXPECT_EQ(meta["io.modelcontextprotocol/subscriptionId"].GetInt(), 5);
    const json::Value& sample = meta["io.fleetmcp/sample"];
    EXPECT_EQ(*json::get_string(sample, "node_id"), kNode);
    EXPECT_TRUE(sample.HasMember("cpu"));
    EXPECT_FALSE(sample.HasMember("mem"));  // include=cpu
  }
  EXPECT_EQ(sse_data(*listen->stream).size(), 4u);  // the acknowledgement came first
  EXPECT_EQ(f.fleet->leased_interval_ms(std::string(kNode)), 1000);
}

TEST_F(McpMetricsResourceTest, TheAcknowledgementLeavesOutWhatIsNotTheTenantsOrIsMalformed) {
  f.fleet->add_node("other", "01hzx9k3m4p7q8r9s0t1v2w3xq",
                    {{"metrics", "system.metrics", {"snapshot", "subscribe"}, SafetyClass::kReadOnly, {5, 2, 2000}}});
  const std::string bad_interval = kMetricsUri + "?interval_ms=500";
  const std::string other_tenant = "fleetmcp://nodes/01hzx9k3m4p7q8r9s0t1v2w3xq/metrics";
  const std::string no_metrics = "fleetmcp://nodes/" + std::string(kNode2) + "/metrics";
  const auto listen = stateless(f, tok, "subscriptions/listen", listen_to({bad_interval, other_tenant, no_metrics, kMetricsUri}));
  ASSERT_TRUE(listen->stream);
  EXPECT_EQ(honoured(*listen->stream), std::vector<std::string>{kMetricsUri});
  EXPECT_EQ(f.front->fanout().feed_count(), 1u);
}

TEST_F(McpMetricsResourceTest, OfflineEndsWithALastUpdateCarryingTheEnvelope) {
  const auto listen = stateless(f, tok, "subscriptions/listen", listen_to({kMetricsUri}));
  f.scheduler->run();
  f.fleet->set_online(std::string(kNode), false);
  f.scheduler->run();
  const auto all = updates(*listen->stream);
  ASSERT_FALSE(all.empty());
  const json::Value& meta = all.back()["params"]["_meta"];
  EXPECT_FALSE(meta.HasMember("io.fleetmcp/sample"));
  EXPECT_EQ(*json::get_string(meta["io.fleetmcp/error"], "code"), "E_NODE_OFFLINE");
  EXPECT_FALSE(json::get_string(meta["io.fleetmcp/error"], "suggested_fix")->empty());
  EXPECT_EQ(meta["io.modelcontextprotocol/subscriptionId"].GetInt(), 5);
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
  EXPECT_FALSE(listen->stream->finished);  // the listen stream itself goes on
  const auto ended = std::find_if(f.audit->begin(), f.audit->end(), [](const std::string& line) {
    return line.find(kSubscribe) != std::string::npos && line.find("E_NODE_OFFLINE") != std::string::npos;
  });
  EXPECT_NE(ended, f.audit->end());
}

TEST_F(McpMetricsResourceTest, MaximumStreamTimeEndsItWithALastUpdate) {
  const auto listen = stateless(f, tok, "subscriptions/listen", listen_to({kMetricsUri + "?interval_ms=2000"}));
  f.advance(milliseconds(10000));
  f.scheduler->run();
  const auto all = updates(*listen->stream);
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(*json::get_string(all.back()["params"]["_meta"]["io.fleetmcp/error"], "code"), "E_DEADLINE_EXCEEDED");
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
}

TEST_F(McpMetricsResourceTest, ClosingTheListenStreamEndsItsSubscriptions) {
  const auto listen = stateless(f, tok, "subscriptions/listen", listen_to({kMetricsUri + "?interval_ms=1000"}));
  f.advance(milliseconds(1000));
  EXPECT_EQ(f.front->fanout().feed_count(), 1u);
  listen->stream->end(StreamEnd::kPeerClosed);
  f.scheduler->run();
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
  EXPECT_EQ(f.fleet->watchers(std::string(kNode)), 0u);
  EXPECT_EQ(f.front->metrics().streams(StreamKind::kMcpCall), 0);
  EXPECT_EQ(f.front->metrics().streams(StreamKind::kMcpGet), 0);
  const auto ended = std::find_if(f.audit->begin(), f.audit->end(), [](const std::string& line) {
    return line.find(kSubscribe) != std::string::npos && line.find("stream") != std::string::npos;
  });
  EXPECT_NE(ended, f.audit->end());  // one line when it ends
}

// Each subscription holds a place in the stream quotas, as a 2025 metrics stream does; past them
// the acknowledgement leaves it out.
TEST(McpMetricsResourceQuota, EachSubscriptionCountsInTheStreamQuotas) {
  FrontFixture f{FrontOptionList{{"http_max_streams_per_caller", "2"}}};
  const std::string tok = f.token();
  const std::string second = "fleetmcp://nodes/" + std::string(kNode) + "/metrics?interval_ms=2000";
  const auto listen = stateless(f, tok, "subscriptions/listen", listen_to({kMetricsUri, second}));
  ASSERT_TRUE(listen->stream);  // one place, and one for the first subscription
  EXPECT_EQ(honoured(*listen->stream), std::vector<std::string>{kMetricsUri});
  const auto refused = std::find_if(f.audit->begin(), f.audit->end(), [](const std::string& line) {
    return line.find(kSubscribe) != std::string::npos && line.find("E_RATE_LIMITED") != std::string::npos;
  });
  EXPECT_NE(refused, f.audit->end());
  const std::string sid = f.open_session(tok);
  const auto body = body_of(*f.rpc(sid, tok, "tools/call", subscribe_call(1000), 3));
  EXPECT_EQ(*json::get_string(body["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_RATE_LIMITED");
  EXPECT_NE(json::get_string(body["result"]["_meta"]["io.fleetmcp/error"], "suggested_fix")->find("max_streams_per_caller"),
            std::string::npos);  // the quota refuses, not the capability's rate
}

TEST_F(McpMetricsResourceTest, ReadCallsTheSnapshotToolOnAnyFront) {
  const std::string uri = kMetricsUri + "?include=mem";
  const auto d = body_of(*stateless(f, tok, "resources/read", R"({"uri":")" + uri + R"("})"));
  ASSERT_TRUE(d.HasMember("result")) << json::to_string(d);
  const json::Value& content = d["result"]["contents"][0];
  EXPECT_EQ(*json::get_string(content, "uri"), uri);
  EXPECT_EQ(*json::get_string(content, "mimeType"), "application/json");
  const auto sample = json::parse_strict(content["text"].GetString()).value();
  EXPECT_EQ(*json::get_string(sample, "node_id"), kNode);
  EXPECT_TRUE(sample.HasMember("mem"));  // (the in-memory node ignores include; the device keeps mem alone)
  const auto read = std::find_if(f.audit->begin(), f.audit->end(), [](const std::string& line) {
    return line.find("sys." + std::string(kNode) + ".metrics.snapshot") != std::string::npos;
  });
  EXPECT_NE(read, f.audit->end());  // audited as the tool's call
}

TEST_F(McpMetricsResourceTest, ReadRefusesOtherTenantsNodesWithoutMetricsAndBadIntervals) {
  const auto code = [&](const std::string& uri) {
    const auto d = body_of(*stateless(f, tok, "resources/read", R"({"uri":")" + uri + R"("})"));
    return d.HasMember("error") ? d["error"]["code"].GetInt() : 0;
  };
  EXPECT_EQ(code("fleetmcp://nodes/" + std::string(kOther) + "/metrics"), -32002);
  EXPECT_EQ(code("fleetmcp://nodes/" + std::string(kNode2) + "/metrics"), -32002);
  EXPECT_EQ(code("fleetmcp://nodes/01hzx9k3m4p7q8r9s0t1v2w3x0/metrics"), -32002);
  const auto bad = body_of(*stateless(f, tok, "resources/read", R"({"uri":")" + kMetricsUri + R"(?interval_ms=70000"})"));
  EXPECT_EQ(bad["error"]["code"].GetInt(), -32602);
  EXPECT_NE(std::string(bad["error"]["message"].GetString()).find("1000 to 60000"), std::string::npos);
  f.fleet->set_online(std::string(kNode), false);
  const auto offline = body_of(*stateless(f, tok, "resources/read", R"({"uri":")" + kMetricsUri + R"("})"));
  EXPECT_EQ(*json::get_string(offline["error"]["data"], "code"), "E_NODE_OFFLINE");
}

// Was E_VERB_UNSUPPORTED: the 2026-07-28 call answers at once, holds nothing, and names the URI
// to subscribe to.
TEST_F(McpMetricsResourceTest, The20260728SubscribeCallAnswersTheLeaseAndTheUriToListenTo) {
  const auto d = body_of(*stateless(f, tok, "tools/call",
                                    R"({"name":")" + kSubscribe + R"(","arguments":{"interval_ms":2000,"include":["cpu","load"]}})"));
  const json::Value& r = d["result"];
  ASSERT_FALSE(r["isError"].GetBool()) << json::to_string(r);
  EXPECT_EQ(*json::get_int64(r["structuredContent"], "interval_ms"), 2000);
  EXPECT_EQ(*json::get_int64(r["structuredContent"], "lease_expires_at_ms"), f.wall_base_ms + 10000);
  EXPECT_FALSE(test_registry()->validate("mcp://schemas/system.metrics.subscribe.output@1.0.0", r["structuredContent"]));
  const std::string text = r["content"][0]["text"].GetString();
  const std::string uri = kMetricsUri + "?interval_ms=2000&include=cpu,load";
  EXPECT_NE(text.find(uri), std::string::npos) << text;
  EXPECT_NE(text.find("subscriptions/listen"), std::string::npos) << text;
  EXPECT_NE(text.find("notifications/resources/updated"), std::string::npos) << text;
  EXPECT_NE(text.find("io.fleetmcp/sample"), std::string::npos) << text;
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);  // nothing held
  EXPECT_EQ(f.front->metrics().streams(StreamKind::kMcpCall), 0);
  // The URI it names is one a listen stream takes.
  const auto listen = stateless(f, tok, "subscriptions/listen", listen_to({uri}));
  EXPECT_EQ(honoured(*listen->stream), std::vector<std::string>{uri});
}

// A 2025 session subscribes to the same resource: the updates go to its GET stream.
TEST_F(McpMetricsResourceTest, A2025SessionSubscribesAndUnsubscribes) {
  const std::string sid = f.open_session(tok);
  const auto get = f.send(HttpRequest{"GET", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid},
                                                        {"Accept", "text/event-stream"}}, ""});
  const std::string uri = kMetricsUri + "?interval_ms=1000";
  EXPECT_TRUE(body_of(*f.rpc(sid, tok, "resources/subscribe", R"({"uri":")" + uri + R"("})")).HasMember("result"));
  EXPECT_TRUE(body_of(*f.rpc(sid, tok, "resources/subscribe", R"({"uri":")" + uri + R"("})")).HasMember("result"));
  f.advance(milliseconds(1000));
  const auto samples = updates(*get->stream);
  ASSERT_EQ(samples.size(), 2u);  // one subscription, however often subscribed
  EXPECT_EQ(*json::get_string(samples[0]["params"]["_meta"]["io.fleetmcp/sample"], "node_id"), kNode);
  EXPECT_FALSE(samples[0]["params"]["_meta"].HasMember("io.modelcontextprotocol/subscriptionId"));
  f.rpc(sid, tok, "resources/unsubscribe", R"({"uri":")" + uri + R"("})");
  f.scheduler->run();
  EXPECT_EQ(f.front->fanout().feed_count(), 0u);
  const auto other = body_of(*f.rpc(sid, tok, "resources/subscribe",
                                    R"({"uri":"fleetmcp://nodes/)" + std::string(kOther) + R"(/metrics"})"));
  EXPECT_EQ(other["error"]["code"].GetInt(), -32002);
}

}  // namespace
}  // namespace fleetmcp::http::testing
