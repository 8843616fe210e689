// RFC-0009's POST /mcp/tools/call through the HTTP front: metrics streams (frames, ping, close codes,
// Accept negotiation, one device stream for every subscriber) and the unary statuses (docs/protocol.md §9).
#include <gtest/gtest.h>

#include "tests/support/front_fixture.h"
#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kSubscribe = "sys." + std::string(kNode) + ".metrics.subscribe";

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

// Physical actuation over RFC-0009 is two-phase too, and the redemption of its commit token is
// audited as MCP's is: one "confirm" line, reason "commit_token".
TEST_F(Rfc0009Test, ARedeemedCommitTokenIsAuditedAsAConfirmation) {
  const std::string set = "relay." + std::string(kNode) + ".relay0.set";
  const auto first = f.post_tools_call(tok, R"({"tool":")" + set + R"(","arguments":{"on":true}})");
  const std::string token = commit_token_in(*json::get_string(body_of(*first), "suggested_fix"));
  ASSERT_FALSE(token.empty());
  EXPECT_EQ(f.fleet->calls_received(), 0u);
  const auto second = f.post_tools_call(tok, R"({"tool":")" + set + R"(","arguments":{"on":true,"commit_token":")" + token + "\"}}");
  EXPECT_EQ(second->reply->status, 200);
  EXPECT_EQ(f.fleet->calls_received(), 1u);
  int confirms = 0;
  for (const std::string& line : *f.audit) {
    if (line.find(R"("decision":"confirm")") != std::string::npos) {
      ++confirms;
      EXPECT_NE(line.find(R"("reason":"commit_token")"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(confirms, 1);
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

// Issue 37 item 10 (docs/protocol.md D44): RFC-0009 takes the names the default mode lists, with
// tools.call.request@1.1.0: a by_kind tool calls the node's tool ({node_id, arguments}), fleet_read
// answers every node's result in one object; bad arguments keep RFC-0009's E_MANIFEST_INVALID, and
// fleet_find_nodes (an MCP result) stays MCP's.
TEST_F(Rfc0009Test, ByKindNamesAndFleetReadCallTheNodes) {
  const auto ok = f.post_tools_call(tok, R"({"tool":"system_echo_ping","arguments":{"node_id":")" + std::string(kNode) +
                                             R"(","arguments":{"message":"by kind"}}})");
  EXPECT_EQ(ok->reply->status, 200);
  EXPECT_EQ(json::get_string(body_of(*ok), "message").value_or(""), "by kind");
  const auto bad = f.post_tools_call(tok, R"({"tool":"system_echo_ping","arguments":{"node_id":")" + std::string(kNode) +
                                              R"(","arguments":{}}})");
  EXPECT_EQ(bad->reply->status, 400);
  EXPECT_EQ(json::get_string(body_of(*bad), "code").value_or(""), "E_MANIFEST_INVALID");

  const auto read = f.post_tools_call(tok, R"({"tool":"fleet_read","arguments":{"kind":"system.metrics","verb":"snapshot"}})");
  ASSERT_EQ(read->reply->status, 200) << read->reply->body;
  const auto results = body_of(*read);
  ASSERT_TRUE(results.HasMember("results")) << read->reply->body;
  EXPECT_GE(results["results"].Size(), 1u);
  EXPECT_TRUE(results["results"][0]["ok"].GetBool()) << read->reply->body;
  const auto refused = f.post_tools_call(tok, R"({"tool":"fleet_read","arguments":{"kind":"system.metrics","verb":"snapshot",)"
                                              R"("arguments":{"include":"uptime"}}})");
  EXPECT_EQ(refused->reply->status, 400);
  EXPECT_EQ(json::get_string(body_of(*refused), "code").value_or(""), "E_MANIFEST_INVALID");
  EXPECT_EQ(f.post_tools_call(tok, R"({"tool":"fleet_find_nodes","arguments":{}})")->reply->status, 404);
}

}  // namespace
}  // namespace fleetmcp::http::testing
