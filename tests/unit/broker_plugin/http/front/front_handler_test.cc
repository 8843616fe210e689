// The HTTP front's routes around MCP: bearer authentication (401 + RFC 9728 challenge), Origin
// validation, the protected-resource metadata, the schema registry, /healthz and /metrics.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/support/front_test_suites.h"
#include "broker_plugin/http/front/schema_routes.h"
#include "common/base/file_text.h"
#include "common/crypto/digest.h"

namespace fleetmcp::http::testing {
namespace {

// "\"" + s + "\"" trips GCC 12's -Wrestrict false positive; append instead.
std::string quoted(const std::string& s) {
  std::string out(1, '"');
  out.append(s);
  out.push_back('"');
  return out;
}

TEST_F(RoutesTest, ForeignOriginIs403AndLoopbackOriginsPass) {
  const std::string tok = f.token();
  const std::string init = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";
  EXPECT_EQ(f.post_mcp(init, "", tok, {{"Origin", "https://evil.example"}})->reply->status, 403);
  EXPECT_EQ(f.post_mcp(init, "", tok, {{"Origin", "http://localhost:6274"}})->reply->status, 200);
  FrontFixture listed(FrontOptionList{{"http_allowed_origins", "https://console.example"}});
  EXPECT_EQ(listed.post_mcp(init, "", listed.token(), {{"Origin", "https://console.example"}})->reply->status, 200);
}

TEST_F(RoutesTest, ProtectedResourceMetadataIsServedAtBothPaths) {
  for (const std::string path : {"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"}) {
    const auto ex = get(path);
    ASSERT_EQ(ex->reply->status, 200) << path;
    const auto doc = body_of(*ex);
    EXPECT_EQ(*json::get_string(doc, "resource"), "http://127.0.0.1:8080/mcp");
    EXPECT_EQ(doc["bearer_methods_supported"][0], "header");
    EXPECT_EQ(doc["scopes_supported"].Size(), 4u);
  }
}

TEST_F(RoutesTest, SchemaDocumentsAreTheExactBytesWithImmutableCaching) {
  const auto* doc = test_registry()->find("system.echo.invoke.input@1.0.0");
  ASSERT_NE(doc, nullptr);
  const auto ex = get("/schemas/system.echo.invoke.input@1.0.0");
  ASSERT_EQ(ex->reply->status, 200);
  EXPECT_EQ(ex->reply->body, doc->bytes);
  EXPECT_EQ(*header_of(*ex->reply, "ETag"), quoted(sha256_hex(doc->bytes)));
  EXPECT_NE(header_of(*ex->reply, "Cache-Control")->find("immutable"), std::string::npos);
  const auto again = get("/schemas/system.echo.invoke.input@1.0.0", {{"If-None-Match", quoted(doc->sha256_hex)}});
  EXPECT_EQ(again->reply->status, 304);
  EXPECT_TRUE(again->reply->body.empty());
}

TEST_F(RoutesTest, SchemaListIsOrderedAndPaginatedByOpaqueCursor) {
  std::vector<std::string> ids;
  std::string target = "/schemas?limit=3";
  for (int i = 0; i < 50; ++i) {
    const auto page = body_of(*get(target));
    for (const auto& d : page["schemas"].GetArray()) {
      ids.emplace_back(d["id"].GetString());
      EXPECT_EQ(d["hash_alg"], "sha-256");
      EXPECT_EQ(std::string(d["hash"].GetString()).size(), 64u);
    }
    const auto next = json::get_string(page, "next_cursor");
    if (!next) break;
    target = "/schemas?limit=3&cursor=" + std::string(*next);
  }
  std::vector<std::string> expected;
  for (const auto* d : test_registry()->list()) expected.push_back(d->id);
  EXPECT_EQ(ids, expected);
  // A cursor made for another order is rejected (RFC 004 §6.5).
  const auto first = body_of(*get("/schemas?limit=1"));
  const auto mismatch = get("/schemas?order=oldest-first&cursor=" + std::string(*json::get_string(first, "next_cursor")));
  EXPECT_EQ(mismatch->reply->status, 400);
}

TEST_F(RoutesTest, SchemaRangesResolveToTheHighestMatchOrNameTheVersions) {
  const auto hit = get("/schemas/error?range=%3E%3D1.0.0%20%3C2.0.0");
  ASSERT_EQ(hit->reply->status, 200);
  EXPECT_EQ(*header_of(*hit->reply, "Content-Location"), "/schemas/error@1.3.0");
  const auto miss = get("/schemas/error?range=%3E%3D2.0.0");
  EXPECT_EQ(miss->reply->status, 404);
  const auto e = body_of(*miss);
  EXPECT_EQ(*json::get_string(e, "code"), "E_BAD_REQUEST");
  EXPECT_NE(std::string(*json::get_string(e, "message")).find("1.1.0, 1.0.0"), std::string::npos);
  EXPECT_EQ(get("/schemas/error?range=1.x")->reply->status, 400);
  EXPECT_EQ(get("/schemas/no.such.schema@1.0.0")->reply->status, 404);
  EXPECT_EQ(get("/schemas/error?preferred=1.0.0")->reply->body, test_registry()->find("error@1.0.0")->bytes);
}

TEST_F(RoutesTest, HealthzAndMetrics) {
  const auto health = body_of(*get("/healthz"));
  EXPECT_EQ(*json::get_string(health, "status"), "ok");
  EXPECT_EQ(json::get_int64(*json::find(health, "nodes"), "online"), 3);
  EXPECT_EQ(json::get_int64(*json::find(health, "nodes"), "revoked"), 0);
  EXPECT_EQ(json::get_int64(health, "serving"), 3);
  // Online from its CONNECT, before any manifest: counted online, not serving (tools not callable).
  f.fleet->add_node("acme", "01jd0000000000000000000099", {});
  const auto connected = body_of(*get("/healthz"));
  EXPECT_EQ(json::get_int64(*json::find(connected, "nodes"), "online"), 4);
  EXPECT_EQ(json::get_int64(connected, "serving"), 3);
  f.fleet->remove_node("01jd0000000000000000000099");
  const std::string tok = f.token();
  const std::string sid = f.open_session(tok);
  f.rpc(sid, tok, "tools/call", R"({"name":"sysecho.)" + std::string(kNode) + R"(.echo.invoke","arguments":{"message":"m"}})");
  const auto metrics = get("/metrics");
  EXPECT_NE(header_of(*metrics->reply, "Content-Type")->find("text/plain"), std::string::npos);
  const std::string& text = metrics->reply->body;
  EXPECT_NE(text.find("fleetmcp_tool_calls_total{kind=\"system.echo\",outcome=\"ok\"} 1"), std::string::npos);
  EXPECT_NE(text.find("fleetmcp_tool_call_duration_seconds_count 1"), std::string::npos);
  EXPECT_NE(text.find("fleetmcp_nodes{state=\"online\"} 3"), std::string::npos);
  EXPECT_NE(text.find("fleetmcp_mcp_sessions 1"), std::string::npos);
  EXPECT_NE(text.find("fleetmcp_sse_streams{endpoint=\"rfc0009\"} 0"), std::string::npos);
  EXPECT_EQ(get("/nope")->reply->status, 404);
}

// RFC 004 Appendix A.14 on the registry's own paging: the vector's five descriptors in a schema
// directory beside the shipped ones, listed by GET /schemas two at a time with the route's cursor, newest-first (the
// vector's order: 1.10.0 above 1.9.0 by SemVer precedence, not by string) and oldest-first (its
// reverse within each name). No duplicates, no skips, in either order.
TEST(SchemaRoutesA14, PagesTheVectorWithTheRegistrysCursorInBothOrders) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("fleetmcp-a14-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string index = "[";
  const auto add = [&](const std::string& file, const std::string& id, const std::string& text) {
    std::ofstream(dir / file) << text;
    index += std::string(index.size() > 1 ? "," : "") + R"({"id":")" + id + R"(","file":")" + file +
             R"(","sha256":")" + sha256_hex(text) + R"("})";
  };
  for (const std::string v : {"org.b.review@2.0.0-rc.1", "org.a.translate@1.9.0", "org.b.review@2.0.0",
                              "org.a.translate@1.10.0", "org.a.translate@1.0.0"}) {
    add(v + ".json", "mcp://schemas/" + v, "{\n  \"$id\": \"mcp://schemas/" + v + "\"\n}\n");
  }
  // Beside the shipped documents (the registry needs its kind registry and what that names).
  const fs::path shipped = FLEETMCP_SOURCE_DIR "/schemas";
  const json::Document rows = json::parse_strict(*try_read_file((shipped / "index.json").string())).value();
  for (const auto& row : rows.GetArray()) {
    const std::string file = row["file"].GetString();
    fs::copy_file(shipped / file, dir / file);
    index += R"(,{"id":")" + std::string(row["id"].GetString()) + R"(","file":")" + file + R"(","sha256":")" +
             row["sha256"].GetString() + R"("})";
  }
  std::ofstream(dir / "index.json") << index << "]";
  const auto registry = SchemaRegistry::load(dir.string());
  fs::remove_all(dir);
  const CursorCodec cursors;
  const SchemaRoutes routes(*registry, cursors);

  const auto pages = [&](const std::string& order) {
    std::vector<std::string> seen;
    std::string target = "/schemas?limit=2" + order;
    for (int i = 0; i < 100; ++i) {
      HttpRequest request;
      request.method = "GET";
      request.target = target;
      const HttpReply reply = routes.handle(request);
      EXPECT_EQ(reply.status, 200) << reply.body;
      const auto page = json::parse_strict(reply.body).value();
      EXPECT_LE(page["schemas"].Size(), 2u);
      for (const auto& d : page["schemas"].GetArray()) {
        const std::string id = d["id"].GetString();
        if (id.find("org.") != std::string::npos) seen.push_back(id.substr(id.find("org.")));
      }
      const auto next = json::get_string(page, "next_cursor");
      if (!next) break;
      target = "/schemas?limit=2" + order + "&cursor=" + std::string(*next);
    }
    return seen;
  };
  EXPECT_EQ(pages(""), (std::vector<std::string>{"org.a.translate@1.10.0", "org.a.translate@1.9.0", "org.a.translate@1.0.0",
                                                 "org.b.review@2.0.0", "org.b.review@2.0.0-rc.1"}));
  EXPECT_EQ(pages("&order=oldest-first"),
            (std::vector<std::string>{"org.a.translate@1.0.0", "org.a.translate@1.9.0", "org.a.translate@1.10.0",
                                      "org.b.review@2.0.0-rc.1", "org.b.review@2.0.0"}));
}

}  // namespace
}  // namespace fleetmcp::http::testing
