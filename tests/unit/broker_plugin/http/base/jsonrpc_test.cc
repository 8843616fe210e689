// The HTTP front's small parts, each on its own: the rate limiter, commit tokens, cursors, the
// RFC-0009 backlog arithmetic, SSE framing, metric frames, content negotiation, Origin, options
// and JSON-RPC classification.
#include <gtest/gtest.h>
#include <rapidjson/writer.h>

#include "broker_plugin/http/calls/call_limiter.h"
#include "broker_plugin/http/calls/commit_tokens.h"
#include "broker_plugin/http/transport/frame_backlog.h"
#include "broker_plugin/http/base/front_options.h"
#include "broker_plugin/http/transport/host_policy.h"
#include "broker_plugin/http/base/jsonrpc.h"
#include "broker_plugin/http/surface/list_cursor.h"
#include "broker_plugin/http/base/media_type.h"
#include "broker_plugin/http/rfc0009/metrics_frame.h"
#include "broker_plugin/http/front/origin_policy.h"
#include "broker_plugin/http/transport/sse_event.h"
#include "tests/support/front_fixture.h"
#include "broker_plugin/http/surface/tool_result.h"
#include "tests/unit/common/base/writer_reference.h"

namespace fleetmcp::http {
namespace {

using std::chrono::milliseconds;

TEST(CallLimiter, TokenBucketRefillsAtTheRate) {
  CallLimiter limiter;
  const CapabilityConstraints c{10, 100, 2000};
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(limiter.admit("n/echo", c, 1000).admitted) << i;  // burst = 10
  const Admission refused = limiter.admit("n/echo", c, 1000);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.retry_after_ms, 100);
  EXPECT_FALSE(limiter.admit("n/echo", c, 1050).admitted);
  EXPECT_TRUE(limiter.admit("n/echo", c, 1100).admitted);
  EXPECT_TRUE(limiter.admit("n/other", c, 1100).admitted);  // per capability
}

TEST(CallLimiter, ConcurrencySlotsAreHeldUntilReleased) {
  CallLimiter limiter;
  const CapabilityConstraints c{100, 2, 2000};
  auto a = limiter.admit("k", c, 0);
  auto b = limiter.admit("k", c, 0);
  EXPECT_TRUE(a.admitted && b.admitted);
  const auto refused = limiter.admit("k", c, 0);
  EXPECT_FALSE(refused.admitted);
  EXPECT_GT(refused.retry_after_ms, 0);
  EXPECT_TRUE(limiter.admit("k", c, 0, false).admitted);  // a stream spends a token, holds no slot
  a.slot.reset();
  EXPECT_EQ(limiter.in_flight("k"), 1u);
  EXPECT_TRUE(limiter.admit("k", c, 0).admitted);
}

TEST(CommitTokens, BoundSingleUseAndShortLived) {
  CommitTokens tokens(30000);
  const CommitBinding b{"acme/alice", "relay.x.relay0.set", "h1"};
  const std::string t = tokens.issue(b, 0);
  EXPECT_FALSE(tokens.redeem(t, CommitBinding{"acme/bob", b.tool, b.arguments_hash}, 1));
  const std::string t2 = tokens.issue(b, 0);
  EXPECT_TRUE(tokens.redeem(t2, b, 29999));
  EXPECT_FALSE(tokens.redeem(t2, b, 29999));
  const std::string t3 = tokens.issue(b, 0);
  EXPECT_FALSE(tokens.redeem(t3, b, 30000));
  EXPECT_NE(t2, t3);
}

TEST(CommitTokens, ArgumentsHashIgnoresKeyOrderAndSpacing) {
  EXPECT_EQ(arguments_hash(json::parse_strict(R"({"a":1,"b":[true,"x"]})").value()),
            arguments_hash(json::parse_strict(R"({ "b" : [ true , "x" ] , "a" : 1.0 })").value()));
  EXPECT_NE(arguments_hash(json::parse_strict(R"({"a":1})").value()), arguments_hash(json::parse_strict(R"({"a":2})").value()));
}

TEST(CursorCodec, RoundTripsAndRejectsForgeriesAndOtherContexts) {
  CursorCodec codec, other;
  const std::string c = codec.encode("tools/list", "sysecho.x.echo.invoke");
  EXPECT_EQ(codec.decode("tools/list", c), "sysecho.x.echo.invoke");
  EXPECT_FALSE(codec.decode("schemas\nnewest-first", c));
  EXPECT_FALSE(other.decode("tools/list", c));
  std::string flipped = c;
  flipped[flipped.size() - 1] = flipped.back() == 'A' ? 'B' : 'A';
  EXPECT_FALSE(codec.decode("tools/list", flipped));
  EXPECT_FALSE(codec.decode("tools/list", ""));
}

TEST(FrameBacklog, CountsFramesUntilTheClientAcknowledgesThem) {
  const auto t0 = FrameBacklog::Clock::now();
  FrameBacklog b(3, t0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(b.admit());
    b.written(100, true);
  }
  b.observe(300, 0, t0);  // nothing acknowledged
  EXPECT_EQ(b.behind(), 3u);
  EXPECT_FALSE(b.admit());  // a 4th would be more than 3 behind (RFC-0009 §6)
  b.observe(150, 0, t0);   // the first frame's last byte is acknowledged
  EXPECT_EQ(b.behind(), 2u);
  EXPECT_TRUE(b.admit());
  b.written(40, false);  // a ping does not count
  EXPECT_EQ(b.behind(), 3u);
}

TEST(FrameBacklog, IdleMeansNoAcknowledgementProgressWhileSomethingIsOutstanding) {
  const auto t0 = FrameBacklog::Clock::now();
  FrameBacklog b(3, t0);
  b.written(100, true);
  b.observe(100, 0, t0 + milliseconds(1000));
  EXPECT_FALSE(b.idle(t0 + milliseconds(89999), milliseconds(90000)));
  EXPECT_TRUE(b.idle(t0 + milliseconds(90000), milliseconds(90000)));
  b.observe(50, 0, t0 + milliseconds(95000));  // progress
  EXPECT_FALSE(b.idle(t0 + milliseconds(100000), milliseconds(90000)));
  b.observe(0, 0, t0 + milliseconds(200000));  // all caught up: never idle
  EXPECT_FALSE(b.idle(t0 + milliseconds(200000), milliseconds(90000)));
}

TEST(SseEvent, FramesEventsAndSplitsLineBreaksIntoDataLines) {
  EXPECT_EQ(sse_event("metric", R"({"a":1})"), "event: metric\ndata: {\"a\":1}\n\n");
  EXPECT_EQ(sse_event("", "x\ny\r\nz\rw", "7"), "id: 7\ndata: x\ndata: y\ndata: z\ndata: w\n\n");
  EXPECT_EQ(sse_comment("keepalive"), ": keepalive\n\n");
}

TEST(MetricsFrame, FlattensASampleAsRfc0009Says) {
  const auto sample = json::parse_strict(R"({"ts_ms":1745300000000,"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","uptime_s":5,
    "cpu":{"cores":4,"usage_pct":12.4},"mem":{"total_bytes":8589934592,"available_bytes":7355367702},
    "load":{"one":0.42,"five":0.39,"fifteen":0.35},
    "disk":[{"mount":"/boot","fs_type":"vfat","total_bytes":100,"available_bytes":0},
            {"mount":"/","fs_type":"ext4","total_bytes":1000,"available_bytes":688}]})").value();
  const auto frame = metrics_frame_json(sample);
  ASSERT_TRUE(frame);
  const auto f = json::parse_strict(*frame).value();
  EXPECT_EQ(*json::get_int64(f, "mem_bytes"), 8589934592 - 7355367702);
  EXPECT_DOUBLE_EQ(*json::get_number(f, "disk_pct"), 31.2);  // of "/", not /boot
  EXPECT_DOUBLE_EQ(*json::get_number(f, "cpu_pct"), 12.4);
  EXPECT_FALSE(testing::test_registry()->validate("mcp://schemas/system.metrics.subscribe.frame@1.0.0", f));
  EXPECT_FALSE(metrics_frame_json(json::parse_strict(R"({"ts_ms":1745300000000,"node_id":"x","uptime_s":1})").value()));
}

TEST(MediaType, AcceptAndContentType) {
  EXPECT_TRUE(accepts("application/json, text/event-stream", "text/event-stream"));
  EXPECT_TRUE(accepts("*/*", "application/json"));
  EXPECT_TRUE(accepts("text/*;q=0.5", "text/event-stream"));
  EXPECT_FALSE(accepts("text/event-stream;q=0", "text/event-stream"));
  EXPECT_FALSE(accepts(std::nullopt, "application/json"));
  EXPECT_TRUE(names("Text/Event-Stream", "text/event-stream"));
  EXPECT_FALSE(names("*/*", "text/event-stream"));
  EXPECT_TRUE(is_json_content_type("application/json; charset=utf-8"));
  // Compared case-insensitively as written, without lowercased copies.
  EXPECT_TRUE(is_json_content_type(" Application/JSON "));
  EXPECT_TRUE(accepts("TEXT/*", "text/event-stream"));
  EXPECT_FALSE(accepts("Text/Event-Stream; Q=0.0", "text/event-stream"));
  EXPECT_FALSE(is_json_content_type("application/jsonx"));
}

TEST(OriginPolicy, LoopbackAndListedOriginsOnly) {
  const OriginPolicy p({"https://console.example"});
  EXPECT_TRUE(p.allows("http://localhost:6274"));
  EXPECT_TRUE(p.allows("http://127.0.0.1"));
  EXPECT_TRUE(p.allows("http://[::1]:8080"));
  EXPECT_TRUE(p.allows("https://console.example"));
  EXPECT_FALSE(p.allows("http://localhost.evil.example"));
  EXPECT_FALSE(p.allows("http://evil.example@localhost"));
  EXPECT_FALSE(p.allows("null"));
}

TEST(HostPolicy, LoopbackAndListedNamesWithAnyPort) {
  const HostPolicy p({"Fleet.Example", "10.0.0.5", "fd00::5"});
  using V = HostPolicy::Verdict;
  for (const char* ok : {"localhost", "LOCALHOST:8080", "127.0.0.1:1", "[::1]:8080", "[::1]", "fleet.example",
                         "fleet.EXAMPLE:443", "10.0.0.5:8080", "[fd00::5]:8080"}) {
    EXPECT_EQ(p.check(ok), V::kAllowed) << ok;
  }
  for (const char* other : {"evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.2", "[::2]:8080"}) {
    EXPECT_EQ(p.check(other), V::kNotOurs) << other;
  }
  for (const char* bad : {"", ":8080", "localhost:80x", "[::1", "evil@localhost", "local host", "localhost/x"}) {
    EXPECT_EQ(p.check(bad), V::kMalformed) << bad;
  }
}

TEST(FrontOptions, ParsesHttpKeysAndNamesTheBadOne) {
  const auto o = parse_front_options(front_option_set({{"http_listen", "[::1]:0"}, {"http_tool_names", "dashed"}, {"ca_file", "x"},
                                      {"http_sse_idle_timeout_ms", "1500"}})).value();
  EXPECT_EQ(o.listen_host, "::1");
  EXPECT_EQ(o.listen_port, 0);
  EXPECT_EQ(o.tool_names, ToolNameStyle::kDashed);
  EXPECT_EQ(o.sse_idle_timeout, milliseconds(1500));
  EXPECT_EQ(resource_url(o, 4321), "http://[::1]:4321/mcp");
  EXPECT_EQ(o.read_timeout, milliseconds(60000));  // the default
  EXPECT_EQ(o.tools_mode, ToolsMode::kByKind);      // the default, as mosquitto.conf ships it (docs/protocol.md D26)
  EXPECT_EQ(o.page_size, 100u);
  EXPECT_EQ(parse_front_options(front_option_set({{"http_read_timeout_ms", "1500"}})).value().read_timeout, milliseconds(1500));
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_read_timeout_ms", "99"}})).ok());  // below 100 ms
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_read_timeout_ms", "1s"}})).ok());
  const auto page = parse_front_options(front_option_set({{"http_page_size", "0"}}));
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().message, "plugin_opt_http_page_size: '0' is not an integer from 1 to 1000");
  // With the lines of mosquitto.conf, the refusal names the file and line (plugin_entry.cc).
  OptionSet at_lines("plugin_opt_", "/etc/mosquitto/mosquitto.conf");
  at_lines.add("http_listen", "127.0.0.1:8080", {"/etc/mosquitto/mosquitto.conf", 41});
  at_lines.add("http_max_connections", "0", {"/etc/mosquitto/mosquitto.conf", 42});
  EXPECT_EQ(parse_front_options(at_lines).error().message,
            "/etc/mosquitto/mosquitto.conf:42: plugin_opt_http_max_connections: '0' is not an integer from 1 to 1000000");
  OptionSet no_key("plugin_opt_", "/etc/mosquitto/mosquitto.conf");
  no_key.add("http_tls_cert", std::string(FLEETMCP_SOURCE_DIR) + "/acl/fleetmcp.acl", {"/etc/mosquitto/mosquitto.conf", 7});
  EXPECT_EQ(parse_front_options(no_key).error().message,
            "/etc/mosquitto/mosquitto.conf: plugin_opt_http_tls_key: is missing");
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_nonsense", "1"}})).ok());
}

TEST(JsonRpc, ClassifiesMessages) {
  EXPECT_EQ(classify(json::parse_strict(R"({"jsonrpc":"2.0","id":1,"method":"ping"})").value()).kind, RpcKind::kRequest);
  EXPECT_EQ(classify(json::parse_strict(R"({"jsonrpc":"2.0","method":"notifications/x"})").value()).kind, RpcKind::kNotification);
  EXPECT_EQ(classify(json::parse_strict(R"({"jsonrpc":"2.0","id":"a","result":{}})").value()).kind, RpcKind::kResponse);
  EXPECT_EQ(classify(json::parse_strict(R"({"jsonrpc":"2.0","id":null,"method":"ping"})").value()).kind, RpcKind::kInvalid);
  EXPECT_EQ(classify(json::parse_strict(R"({"id":1,"method":"ping"})").value()).kind, RpcKind::kInvalid);
  EXPECT_EQ(classify(json::parse_strict(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":3})").value()).kind, RpcKind::kInvalid);
}

TEST(JsonRpc, FindsARequestIdABatchUsesTwice) {
  EXPECT_EQ(duplicate_request_id(json::parse_strict(
                R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"1","method":"ping"}])").value()),
            std::nullopt);  // 1 and "1" are different ids
  EXPECT_EQ(duplicate_request_id(json::parse_strict(
                R"([{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},)"
                R"({"jsonrpc":"2.0","id":"a","result":{}},{"jsonrpc":"2.0","id":"a","method":"tools/list"}])").value()),
            std::optional<std::string>("\"a\""));  // the response with id "a" is not a request
}

TEST(ToolResult, AnImagePreviewIsAlsoImageContent) {
  const auto r = tool_success(R"({"file_path":"/var/lib/fleetmcp/cam-1.jpg","preview":{"mime_type":"image/jpeg","width":2,"height":2,"data_base64":"/9j/4AAQ"}})",
                              kLatestRevision);
  ASSERT_EQ(r["content"].Size(), 2u);
  EXPECT_STREQ(r["content"][0]["type"].GetString(), "text");
  EXPECT_STREQ(r["content"][1]["type"].GetString(), "image");
  EXPECT_STREQ(r["content"][1]["data"].GetString(), "/9j/4AAQ");
  EXPECT_STREQ(r["content"][1]["mimeType"].GetString(), "image/jpeg");
  EXPECT_EQ(tool_success(R"({"message":"x"})", kLatestRevision)["content"].Size(), 1u);
}

// The answer as a document RapidJSON's Writer serialises: what rpc_tool_success and rpc_result
// must equal byte for byte.
std::string written_answer(const json::Value& id, const json::Value& result) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("jsonrpc", "2.0", a);
  json::Value id_copy, result_copy;
  id_copy.CopyFrom(id, a);
  result_copy.CopyFrom(result, a);
  d.AddMember("id", id_copy, a);
  d.AddMember("result", result_copy, a);
  return fleetmcp::testing::written_by_rapidjson(d);  // escaping byte by byte: writer_reference.h
}

TEST(ToolResult, TheAnswerWrittenWithoutParsingIsTheSameBytes) {
  // Every id classify() accepts on a request: integers (negative, 0, the int64 and uint64 ends)
  // and strings (empty, escapes, control characters, non-ASCII UTF-8).
  const char* ids[] = {"1", "-7", "0", "9223372036854775807", "-9223372036854775808", "18446744073709551615",
                       R"("")", R"("req-\u00e9\"1\\ \n\t\u0001\u001f\u007f/\ud83d\ude00")", R"("abc")"};
  // As the core hands results over: json::to_string of what it parsed.
  const char* results[] = {
      R"({"message":"a \"quoted\" \\ line\nnext \u0001 caf\u00e9 \ud83d\ude00"})",
      R"({"c":"\u0000\u0008\u000c\r\t\u001b\u007f","k\"\\":"</script>","u":"\u00ff\u4e2d\uffff"})",
      R"({"n":-0.0,"big":18446744073709551615,"x":1e300,"y":0.1,"z":[1,2.5,{"k":null}],"t":true})",
      R"({"preview":{"mime_type":"image/png","data_base64":"iVBO"},"file_path":"/x"})",
      R"({"note":"not a \"preview\" member","preview":3})",
      "{}"};
  for (const char* id_text : ids) {
    const json::Document id = json::parse_strict(id_text).value();
    ASSERT_TRUE(classify(json::parse_strict(R"({"jsonrpc":"2.0","method":"x","id":)" + std::string(id_text) + "}").value())
                    .kind == RpcKind::kRequest)
        << id_text;
    for (const char* written : results) {
      const std::string result = json::to_string(json::parse_strict(written).value());
      for (const McpRevision revision : {McpRevision::k2025_03_26, McpRevision::k2025_06_18, McpRevision::k2025_11_25}) {
        const json::Document success = tool_success(result, revision);
        const std::string expected = written_answer(id, success);
        EXPECT_EQ(rpc_tool_success(id_key(id), result, revision), expected) << id_text << " " << result;
        EXPECT_EQ(rpc_result(id, success), expected) << id_text << " " << result;
        EXPECT_EQ(rpc_result(id_key(id), success), expected) << id_text << " " << result;
      }
    }
  }
}

}  // namespace
}  // namespace fleetmcp::http
