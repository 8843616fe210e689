// The MCP Streamable HTTP layer of the HTTP front (docs/protocol.md §7,
// docs/platform-notes.md §H1–§H3), driven through the front's handler with in-memory exchanges
// over an in-memory fleet: what an MCP client sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

// ^[A-Za-z0-9_.-]{1,max}$ (dots allowed or not): the MCP tool name rules
// (docs/platform-notes.md §H2.2, §H6.1).
bool is_tool_name(std::string_view s, size_t max, bool dots) {
  if (s.empty() || s.size() > max) return false;
  return std::all_of(s.begin(), s.end(), [dots](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || (dots && c == '.');
  });
}

TEST_F(McpTest, InitializeEchoesASupportedRevisionAndCreatesASession) {
  for (const std::string version : {"2025-03-26", "2025-06-18", "2025-11-25"}) {
    const auto ex = f.post_mcp(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":")" + version +
                                   R"(","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})",
                               "", tok);
    ASSERT_TRUE(ex->reply);
    EXPECT_EQ(ex->reply->status, 200);
    const auto body = body_of(*ex);
    EXPECT_EQ(*json::get_string(body["result"], "protocolVersion"), version);
    EXPECT_TRUE(body["result"]["capabilities"]["tools"]["listChanged"].GetBool());
    const auto sid = header_of(*ex->reply, "Mcp-Session-Id");
    ASSERT_TRUE(sid);
    EXPECT_GE(sid->size(), 16u);
    EXPECT_TRUE(std::all_of(sid->begin(), sid->end(), [](char c) { return c >= 0x21 && c <= 0x7E; }));
  }
}

TEST_F(McpTest, InitializeWithAnUnknownRevisionOffersTheLatest) {
  const auto ex = f.post_mcp(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1.0.0"}})", "", tok);
  EXPECT_EQ(*json::get_string(body_of(*ex)["result"], "protocolVersion"), "2025-11-25");
}

TEST_F(McpTest, SessionHeaderRulesFollowTheTransport) {
  const auto missing = f.rpc("", tok, "ping", "");
  EXPECT_EQ(missing->reply->status, 400);
  const auto unknown = f.rpc("no-such-session", tok, "ping", "");
  EXPECT_EQ(unknown->reply->status, 404);
  const std::string sid = f.open_session(tok);
  const auto ping = f.rpc(sid, tok, "ping", "");
  EXPECT_EQ(ping->reply->status, 200);
  EXPECT_TRUE(body_of(*ping)["result"].IsObject());

  HttpRequest del{"DELETE", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid}}, ""};
  EXPECT_EQ(f.send(del)->reply->status, 200);
  EXPECT_EQ(f.rpc(sid, tok, "ping", "")->reply->status, 404);
}

TEST_F(McpTest, AnotherAgentsSessionIsUnknown) {
  const std::string sid = f.open_session(tok);
  EXPECT_EQ(f.rpc(sid, f.token("acme", kAllScopes, "bob"), "ping", "")->reply->status, 404);
  EXPECT_EQ(f.rpc(sid, f.token("other", kAllScopes, "alice"), "ping", "")->reply->status, 404);
}

TEST_F(McpTest, TransportChecksAcceptContentTypeAndVersionHeader) {
  const std::string sid = f.open_session(tok);
  const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  HttpRequest r{"POST", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid}, {"Content-Type", "application/json"},
                                 {"Accept", "application/json"}}, ping};
  EXPECT_EQ(f.send(r)->reply->status, 406);
  r.headers[3].second = "application/json, text/event-stream";
  r.headers[2].second = "text/plain";
  EXPECT_EQ(f.send(r)->reply->status, 415);
  r.headers[2].second = "application/json; charset=utf-8";
  r.headers.emplace_back("MCP-Protocol-Version", "2099-01-01");
  EXPECT_EQ(f.send(r)->reply->status, 400);
  r.headers.back().second = "2025-06-18";
  EXPECT_EQ(f.send(r)->reply->status, 200);
}

TEST_F(McpTest, NotificationsAreAcceptedWith202AndNoBody) {
  const std::string sid = f.open_session(tok);
  const auto ex = f.post_mcp(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", sid, tok);
  EXPECT_EQ(ex->reply->status, 202);
  EXPECT_TRUE(ex->reply->body.empty());
}

TEST_F(McpTest, ProtocolErrorsUseJsonRpcCodes) {
  const std::string sid = f.open_session(tok);
  const auto parse = f.post_mcp("{not json", sid, tok);
  EXPECT_EQ(parse->reply->status, 400);
  EXPECT_EQ(body_of(*parse)["error"]["code"].GetInt(), -32700);
  const auto invalid = f.post_mcp(R"({"jsonrpc":"1.0","id":1,"method":"ping"})", sid, tok);
  EXPECT_EQ(body_of(*invalid)["error"]["code"].GetInt(), -32600);
  const auto unknown = f.rpc(sid, tok, "sampling/createMessage", "");
  EXPECT_EQ(body_of(*unknown)["error"]["code"].GetInt(), -32601);
}

TEST_F(McpTest, ToolsListPagesThroughEveryToolOnceAndEndsWithoutCursor) {
  FrontFixture small(FrontOptionList{{"http_page_size", "2"}});
  const std::string t = small.token();
  const std::string sid = small.open_session(t);
  std::vector<std::string> names;
  std::string params = "{}";
  for (int page = 0; page < 10; ++page) {
    const auto body = body_of(*small.rpc(sid, t, "tools/list", params));
    for (const auto& tool : body["result"]["tools"].GetArray()) names.emplace_back(tool["name"].GetString());
    const auto cursor = json::get_string(body["result"], "nextCursor");
    if (!cursor) break;
    ASSERT_FALSE(cursor->empty());
    params = R"({"cursor":")" + std::string(*cursor) + "\"}";
  }
  // acme: echo, metrics snapshot + subscribe, relay set + get on kNode; echo on kNode2. Never the other tenant's.
  EXPECT_EQ(names.size(), 6u);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  for (const auto& n : names) EXPECT_EQ(n.find(kOther), std::string::npos);
}

TEST_F(McpTest, AForgedCursorIsInvalidParams) {
  const std::string sid = f.open_session(tok);
  const auto body = body_of(*f.rpc(sid, tok, "tools/list", R"({"cursor":"c3lzZWNoby4w"})"));
  EXPECT_EQ(body["error"]["code"].GetInt(), -32602);
}

TEST_F(McpTest, ToolObjectsCarrySchemasAnnotationsAndTemplatedDescriptions) {
  const std::string sid = f.open_session(tok);
  const auto body = body_of(*f.rpc(sid, tok, "tools/list", ""));
  std::map<std::string, const json::Value*> by_name;
  for (const auto& tool : body["result"]["tools"].GetArray()) by_name[tool["name"].GetString()] = &tool;

  const json::Value& echo = *by_name.at(echo_tool());
  // The registry's schemas, served in their portable form (portable_schema.h): no $schema/$id/title.
  EXPECT_TRUE(echo["inputSchema"]["properties"].HasMember("message"));
  EXPECT_TRUE(echo["outputSchema"]["properties"].HasMember("received_at_ms"));
  EXPECT_FALSE(echo["inputSchema"].HasMember("$id"));
  EXPECT_FALSE(echo["outputSchema"].HasMember("$schema"));
  EXPECT_FALSE(echo["outputSchema"].HasMember("description"));
  // Output schemas carry an $id of their own: the MCP SDK compiles one validator per $id, not one
  // per listed tool (docs/http-front.md, "Listing cost").
  ASSERT_TRUE(echo["outputSchema"].HasMember("$id"));
  const std::string served_id(*json::get_string(echo["outputSchema"], "$id"));
  EXPECT_TRUE(served_id.starts_with("mcp://schemas/system.echo.invoke.output@1.1.0/served-")) << served_id;
  EXPECT_EQ(served_id.size(), std::string("mcp://schemas/system.echo.invoke.output@1.1.0/served-").size() + 16);
  EXPECT_STREQ(echo["outputSchema"].MemberBegin()->name.GetString(), "$id");
  EXPECT_TRUE(echo["annotations"]["readOnlyHint"].GetBool());
  EXPECT_EQ(*json::get_string(echo, "x-safety-class"), "read_only");
  EXPECT_EQ(*json::get_string(echo["annotations"], "x-safety-class"), "read_only");  // RFC-0001 §3
  // RFC-0001 §3: the kind's template only; the node and capability are in the name and _meta.
  EXPECT_EQ(std::string(echo["description"].GetString()).find(std::string(kNode)), std::string::npos);
  EXPECT_EQ(std::string(echo["description"].GetString()).find("{node_id}"), std::string::npos);

  const json::Value& set = *by_name.at("relay." + std::string(kNode) + ".relay0.set");
  EXPECT_FALSE(set["annotations"]["readOnlyHint"].GetBool());
  EXPECT_TRUE(set["annotations"]["destructiveHint"].GetBool());
  EXPECT_EQ(*json::get_string(set, "x-safety-class"), "physical_actuation");
  EXPECT_EQ(*json::get_string(set["annotations"], "x-safety-class"), "physical_actuation");
  EXPECT_TRUE(set["inputSchema"]["properties"].HasMember("commit_token"));
  const json::Value& get = *by_name.at("relay." + std::string(kNode) + ".relay0.get");
  EXPECT_TRUE(get["annotations"]["readOnlyHint"].GetBool());
  // A read verb carries its own class, not the capability's (docs/protocol.md D36).
  EXPECT_EQ(*json::get_string(get["annotations"], "x-safety-class"), "read_only");
  EXPECT_EQ(*json::get_string(get["_meta"], "x-safety-class"), "read_only");
  // Doc 05 §9.2: the registry marks the test relay's get alpha and leaves echo and set unmarked (stable).
  EXPECT_EQ(*json::get_string(get["_meta"], "io.fleetmcp/stability"), "alpha");
  EXPECT_EQ(*json::get_string(set["_meta"], "io.fleetmcp/stability"), "stable");
  EXPECT_EQ(*json::get_string(echo["_meta"], "io.fleetmcp/stability"), "stable");
  for (const auto& [name, tool] : by_name) {
    EXPECT_TRUE(is_tool_name(name, 64, true)) << name;
    EXPECT_EQ(*json::get_string((*tool)["inputSchema"], "type"), "object");
  }
}

TEST_F(McpTest, Revision20250326GetsNoStructuredFields) {
  const std::string sid = f.open_session(tok, "2025-03-26");
  const auto list = body_of(*f.rpc(sid, tok, "tools/list", ""));
  for (const auto& tool : list["result"]["tools"].GetArray()) {
    EXPECT_FALSE(tool.HasMember("outputSchema"));
    EXPECT_FALSE(tool.HasMember("title"));
  }
  const auto call = body_of(*f.rpc(sid, tok, "tools/call", echo_call(echo_tool())));
  EXPECT_FALSE(call["result"].HasMember("structuredContent"));
  EXPECT_NE(std::string(call["result"]["content"][0]["text"].GetString()).find("\"hi\""), std::string::npos);
}

TEST_F(McpTest, DashedNamesAreListedAndBothFormsCall) {
  FrontFixture dashed(FrontOptionList{{"http_tool_names", "dashed"}});
  const std::string t = dashed.token();
  const std::string sid = dashed.open_session(t);
  const auto list = body_of(*dashed.rpc(sid, t, "tools/list", ""));
  for (const auto& tool : list["result"]["tools"].GetArray()) {
    EXPECT_TRUE(is_tool_name(tool["name"].GetString(), 64, false));
  }
  const std::string dashed_name = "sysecho-" + std::string(kNode) + "-echo-invoke";
  for (const std::string& name : {dashed_name, echo_tool()}) {
    const auto call = body_of(*dashed.rpc(sid, t, "tools/call", echo_call(name)));
    EXPECT_FALSE(call["result"]["isError"].GetBool()) << name;
  }
}

TEST_F(McpTest, CallReturnsStructuredContentAndText) {
  const std::string sid = f.open_session(tok);
  const auto body = body_of(*f.rpc(sid, tok, "tools/call", echo_call(echo_tool(), "ping")));
  const json::Value& r = body["result"];
  EXPECT_FALSE(r["isError"].GetBool());
  EXPECT_EQ(*json::get_string(r["structuredContent"], "message"), "ping");
  EXPECT_EQ(*json::get_string(r["structuredContent"], "node_id"), kNode);
  const auto text = json::parse_strict(r["content"][0]["text"].GetString()).value();
  EXPECT_EQ(text, r["structuredContent"]);
}

TEST_F(McpTest, UnknownToolAndAnotherTenantsToolLookTheSame) {
  const std::string sid = f.open_session(tok);
  const auto foreign = body_of(*f.rpc(sid, tok, "tools/call", echo_call(echo_tool(kOther))));
  const auto made_up = body_of(*f.rpc(sid, tok, "tools/call", echo_call(echo_tool("01hzx9k3m4p7q8r9s0t1v2w3x0"))));
  for (const auto* b : {&foreign, &made_up}) {
    EXPECT_EQ((*b)["error"]["code"].GetInt(), -32602);
    EXPECT_EQ(*json::get_string((*b)["error"]["data"], "code"), "E_MANIFEST_NOT_FOUND");
  }
  EXPECT_EQ(f.fleet->calls_received(), 0u);
}

TEST_F(McpTest, ASilentDeviceHitsTheGatewayDeadline) {
  f.fleet->set_silent(std::string(kNode), true);
  const std::string sid = f.open_session(tok);
  const auto ex = f.rpc(sid, tok, "tools/call", echo_call(echo_tool()));
  EXPECT_FALSE(ex->reply);
  f.advance(std::chrono::milliseconds(4999));
  EXPECT_FALSE(ex->reply);
  f.advance(std::chrono::milliseconds(1));  // max(5000, 2000 + 1000)
  ASSERT_TRUE(ex->reply);
  EXPECT_EQ(*json::get_string(body_of(*ex)["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_DEADLINE_EXCEEDED");
}

TEST_F(McpTest, CancelledCallGetsNoResponse) {
  f.fleet->set_silent(std::string(kNode), true);
  const std::string sid = f.open_session(tok);
  const auto call = f.rpc(sid, tok, "tools/call", echo_call(echo_tool()), 42);
  const auto cancel = f.post_mcp(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"user"}})", sid, tok);
  EXPECT_EQ(cancel->reply->status, 202);
  EXPECT_TRUE(call->abandoned);
  f.advance(std::chrono::milliseconds(10000));
  EXPECT_EQ(call->answers, 1);
}

// Issue 24, item 4: the session of a call in flight ends (its caller's newer session replaces
// it, DELETE, the front stops). The HTTP request is still open: it is answered, not abandoned.
const json::Value& error_of(const json::Document& body) { return body["result"]["_meta"]["io.fleetmcp/error"]; }
const json::Value& error_of(json::Document&& body) = delete;  // the answer would outlive its document

TEST(McpSessionEnd, ACallInFlightIsAnsweredWhenANewerSessionOfItsCallerReplacesIt) {
  FrontFixture f{FrontOptionList{{"http_max_sessions_per_caller", "1"}}};
  const std::string tok = f.token();
  f.fleet->set_silent(std::string(kNode), true);
  const std::string sid = f.open_session(tok);
  const auto call = f.rpc(sid, tok, "tools/call", echo_call(echo_tool()), 42);
  EXPECT_FALSE(call->reply);
  f.open_session(tok);  // its caller's second session: the first one ends
  ASSERT_TRUE(call->reply) << "the call was abandoned: an empty reply";
  EXPECT_FALSE(call->abandoned);
  const auto body = body_of(*call);
  EXPECT_EQ(*json::get_int64(body, "id"), 42);
  EXPECT_TRUE(body["result"]["isError"].GetBool());
  const json::Value& e = error_of(body);
  EXPECT_EQ(*json::get_string(e, "code"), "E_NODE_OFFLINE");
  EXPECT_NE(json::get_string(e, "message")->find("the MCP session ended"), std::string::npos);
  EXPECT_NE(json::get_string(e, "message")->find("plugin_opt_http_max_sessions_per_caller"), std::string::npos);
  // echo only reads: nothing to check before calling again.
  EXPECT_EQ(json::get_string(e, "message")->find("unknown"), std::string::npos);
  EXPECT_NE(json::get_string(e, "suggested_fix")->find("new session"), std::string::npos);
  f.advance(std::chrono::milliseconds(10000));  // past the gateway deadline: nothing more
  EXPECT_EQ(call->answers, 1);
  EXPECT_NE(f.audit->back().find(R"("code":"E_NODE_OFFLINE")"), std::string::npos) << f.audit->back();
}

TEST_F(McpTest, ACallThatMayActOnTheDeviceIsAnsweredOutcomeUnknownWhenItsSessionIsDeleted) {
  const std::string sid = f.open_session(tok);
  const std::string name = "relay." + std::string(kNode) + ".relay0.set";
  const std::string ct = commit_token_of(body_of(*f.rpc(sid, tok, "tools/call", R"({"name":")" + name + R"(","arguments":{"on":true}})")));
  f.fleet->set_silent(std::string(kNode), true);
  const auto call = f.rpc(sid, tok, "tools/call", R"({"name":")" + name + R"(","arguments":{"on":true,"commit_token":")" + ct + "\"}}", 7);
  EXPECT_EQ(f.fleet->calls_received(), 1u);
  f.send(HttpRequest{"DELETE", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid}}, ""});
  ASSERT_TRUE(call->reply);
  const auto body = body_of(*call);
  const json::Value& e = error_of(body);
  EXPECT_EQ(*json::get_string(e, "code"), "E_NODE_OFFLINE");
  EXPECT_NE(json::get_string(e, "message")->find("(DELETE)"), std::string::npos);
  EXPECT_NE(json::get_string(e, "message")->find("its outcome is unknown"), std::string::npos);
  EXPECT_NE(json::get_string(e, "suggested_fix")->find("read the device's state before repeating"), std::string::npos);
}

TEST_F(McpTest, CallsInFlightAreAnsweredWhenTheFrontShutsDown) {
  f.fleet->set_silent(std::string(kNode), true);
  const std::string sid = f.open_session(tok, "2025-03-26");
  const auto single = f.rpc(sid, tok, "tools/call", echo_call(echo_tool()), 1);
  const auto batch = f.post_mcp(R"([{"jsonrpc":"2.0","id":2,"method":"tools/call","params":)" + echo_call(echo_tool()) +
                                    R"(},{"jsonrpc":"2.0","id":3,"method":"ping"}])",
                                sid, tok);
  EXPECT_FALSE(single->reply);
  EXPECT_FALSE(batch->reply);
  f.front->shutdown();
  f.scheduler->run();
  ASSERT_TRUE(single->reply);
  const auto body = body_of(*single);
  const json::Value& e = error_of(body);
  EXPECT_EQ(*json::get_string(e, "code"), "E_NODE_OFFLINE");
  EXPECT_NE(json::get_string(e, "message")->find("the broker is shutting down"), std::string::npos);
  EXPECT_NE(json::get_string(e, "suggested_fix")->find("once the broker is back"), std::string::npos);
  ASSERT_TRUE(batch->reply);  // the batch's array, with the call's answer in it
  const auto answers = body_of(*batch);
  ASSERT_EQ(answers.Size(), 2u);
  EXPECT_EQ(*json::get_int64(answers[1], "id"), 2);
  EXPECT_TRUE(answers[1]["result"]["isError"].GetBool());
}

TEST_F(McpTest, AFleetReadInFlightIsAnsweredWhenItsSessionEnds) {
  f.fleet->set_silent(std::string(kNode), true);
  const std::string sid = f.open_session(tok);
  const auto call = f.rpc(sid, tok, "tools/call",
                          R"({"name":"fleet_read","arguments":{"kind":"system.metrics","verb":"snapshot"}})", 9);
  EXPECT_FALSE(call->reply);
  f.send(HttpRequest{"DELETE", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid}}, ""});
  ASSERT_TRUE(call->reply);
  const auto body = body_of(*call);
  EXPECT_EQ(*json::get_int64(body, "id"), 9);
  EXPECT_EQ(*json::get_string(error_of(body), "code"), "E_NODE_OFFLINE");
  f.advance(std::chrono::milliseconds(10000));  // the node's own call ends at its deadline: nothing more
  EXPECT_EQ(call->answers, 1);
}

// Issue 34 step 3: the name is resolved once (tool_surface.h), in one snapshot, and what it
// resolved to is handed on: fleet_read plans its nodes in that resolution, not again.
TEST_F(McpTest, AToolsCallResolvesItsToolOnceInOneSnapshot) {
  const std::string sid = f.open_session(tok);
  for (const std::string& params : {echo_call(echo_tool()),
                                    std::string(R"({"name":"fleet_read","arguments":{"kind":"system.metrics","verb":"snapshot"}})")}) {
    const size_t before = f.fleet->snapshots_taken();
    const auto call = f.rpc(sid, tok, "tools/call", params, 3);
    ASSERT_TRUE(call->reply) << params;
    EXPECT_FALSE(body_of(*call)["result"]["isError"].GetBool()) << params;
    EXPECT_EQ(f.fleet->snapshots_taken() - before, 1u) << params;
  }
}

TEST(McpSessionEnd, ARequestTrackedAfterItsSessionEndedIsStoppedAtOnce) {
  AgentToken agent;
  agent.sub = "alice";
  agent.tenant = "acme";
  McpSession session("s", agent, kLatestRevision, 0);
  session.end(SessionEnd::kShutdown);
  std::optional<SessionEnd> stopped;
  session.track("1", [&stopped](std::optional<SessionEnd> why) { stopped = why; });
  EXPECT_EQ(stopped, SessionEnd::kShutdown);
  EXPECT_FALSE(session.busy());
}

TEST_F(McpTest, BatchesWorkIn20250326Only) {
  const std::string old_sid = f.open_session(tok, "2025-03-26");
  const auto batch = f.post_mcp(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":)" +
                                    echo_call(echo_tool()) + "}]",
                                old_sid, tok);
  const auto replies = body_of(*batch);
  ASSERT_TRUE(replies.IsArray());
  EXPECT_EQ(replies.Size(), 2u);
  const std::string new_sid = f.open_session(tok, "2025-11-25");
  EXPECT_EQ(f.post_mcp(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", new_sid, tok)->reply->status, 400);
}

TEST_F(McpTest, ListChangedGoesToTheTenantsGetStreamOnly) {
  const std::string sid = f.open_session(tok);
  const std::string other_tok = f.token("other");
  const std::string other_sid = f.open_session(other_tok);
  auto open_get = [&](const std::string& s, const std::string& t) {
    return f.send(HttpRequest{"GET", "/mcp", {{"Authorization", "Bearer " + t}, {"Mcp-Session-Id", s}, {"Accept", "text/event-stream"}}, ""});
  };
  const auto get = open_get(sid, tok);
  const auto other_get = open_get(other_sid, other_tok);
  ASSERT_TRUE(get->stream);
  EXPECT_EQ(open_get(sid, tok)->reply->status, 409);  // one GET stream per session

  f.fleet->add_node("acme", "01hzx9k3m4p7q8r9s0t1v2w3xb", {{"echo", "system.echo", {"invoke"}, SafetyClass::kReadOnly, {}}});
  f.scheduler->run();
  std::vector<std::string> events;
  auto data = sse_data(*get->stream, &events);
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(*json::get_string(data[0], "method"), "notifications/tools/list_changed");
  EXPECT_TRUE(sse_data(*other_get->stream).empty());

  f.fleet->set_online(std::string(kNode), false);  // offline keeps the tools: no change to list
  f.scheduler->run();
  EXPECT_EQ(sse_data(*get->stream).size(), 1u);
  f.fleet->expire(std::string(kNode));  // expiry removes them
  f.scheduler->run();
  EXPECT_EQ(sse_data(*get->stream).size(), 2u);
}

TEST_F(McpTest, DeleteClosesTheGetStream) {
  const std::string sid = f.open_session(tok);
  const auto get = f.send(HttpRequest{"GET", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid}, {"Accept", "text/event-stream"}}, ""});
  f.send(HttpRequest{"DELETE", "/mcp", {{"Authorization", "Bearer " + tok}, {"Mcp-Session-Id", sid}}, ""});
  EXPECT_TRUE(get->stream->finished);
}

TEST_F(McpTest, Revision20260728IsServedWithoutASession) {
  const auto discover = stateless(f, tok, "server/discover");
  ASSERT_EQ(discover->reply->status, 200);
  const auto d = body_of(*discover);
  EXPECT_EQ(std::string(d["result"]["supportedVersions"][0].GetString()), "2026-07-28");
  EXPECT_EQ(*json::get_string(d["result"], "resultType"), "complete");
  EXPECT_TRUE(d["result"]["capabilities"]["tools"]["listChanged"].GetBool());  // on a subscriptions/listen stream
  EXPECT_TRUE(d["result"]["capabilities"]["resources"]["subscribe"].GetBool());  // likewise (resourceSubscriptions)
  EXPECT_FALSE(d["result"]["capabilities"].HasMember("logging"));
  EXPECT_EQ(*json::get_string(d["result"]["_meta"]["io.modelcontextprotocol/serverInfo"], "name"), "fleetmcp");

  const auto list = body_of(*stateless(f, tok, "tools/list"));
  EXPECT_EQ(*json::get_string(list["result"], "cacheScope"), "private");
  EXPECT_TRUE(list["result"]["ttlMs"].IsInt64());
  EXPECT_EQ(list["result"]["tools"].Size(), body_of(*f.rpc(f.open_session(tok), tok, "tools/list", "{}"))["result"]["tools"].Size());
  EXPECT_EQ(json::to_string(list["result"]["tools"]), json::to_string(body_of(*stateless(f, tok, "tools/list"))["result"]["tools"]));

  const auto call = stateless(f, tok, "tools/call", echo_call(echo_tool(), "ping"));
  const auto c = body_of(*call);
  EXPECT_EQ(header_of(*call->reply, "Mcp-Session-Id"), std::nullopt);
  EXPECT_EQ(*json::get_string(c["result"], "resultType"), "complete");
  EXPECT_EQ(*json::get_string(c["result"]["structuredContent"], "message"), "ping");
  for (const std::string_view method : {"resources/list", "resources/templates/list", "prompts/list"}) {
    const auto r = body_of(*stateless(f, tok, method));
    EXPECT_TRUE(r["result"].HasMember("ttlMs")) << method;
    EXPECT_TRUE(r["result"].HasMember("cacheScope")) << method;
  }
  EXPECT_EQ(f.front->sessions().size(), 1u);  // the one open_session above, none for the stateless requests
}

// A 2026-07-28 listen stream hears of its tenant's tool and resource lists changing: a node enrols.
TEST_F(McpTest, Revision20260728ListenStreamHearsToolAndResourceListChanges) {
  const auto listen = stateless(f, tok, "subscriptions/listen",
                                R"({"notifications":{"toolsListChanged":true,"resourcesListChanged":true}})");
  ASSERT_TRUE(listen->stream);
  const auto other = stateless(f, f.token("other"), "subscriptions/listen", R"({"notifications":{"resourcesListChanged":true}})");
  f.fleet->add_node("acme", "01hzx9k3m4p7q8r9s0t1v2w3xb", {{"echo", "system.echo", {"invoke"}, SafetyClass::kReadOnly, {}}});
  f.scheduler->run();
  std::set<std::string> told;
  for (const auto& message : sse_data(*listen->stream)) told.insert(std::string(*json::get_string(message, "method")));
  EXPECT_EQ(told, (std::set<std::string>{"notifications/subscriptions/acknowledged", "notifications/tools/list_changed",
                                         "notifications/resources/list_changed"}));
  EXPECT_EQ(sse_data(*other->stream).size(), 1u);  // its acknowledgement only
  f.fleet->set_online(std::string(kNode), false);  // offline: still listed
  f.scheduler->run();
  EXPECT_EQ(sse_data(*listen->stream).size(), 3u);
}

// resourceSubscriptions on a listen stream: updates of the named resources of its tenant, as a
// 2025 session's resources/subscribe gets them; a URI of no resource of its tenant is not honoured.
TEST_F(McpTest, Revision20260728ListenStreamHearsOfTheResourcesItNamed) {
  const std::string uri = "fleetmcp://nodes/" + std::string(kNode) + "/manifest";
  const auto listen = stateless(f, tok, "subscriptions/listen",
                                R"({"notifications":{"resourceSubscriptions":[")" + uri + R"(","fleetmcp://nodes/nope/manifest"]}})");
  ASSERT_TRUE(listen->stream);
  f.scheduler->run();
  const auto ack = sse_data(*listen->stream);
  ASSERT_EQ(ack.size(), 1u);
  const json::Value& honoured = ack[0]["params"]["notifications"]["resourceSubscriptions"];
  ASSERT_EQ(honoured.Size(), 1u);
  EXPECT_EQ(std::string(honoured[0].GetString()), uri);
  f.fleet->set_online(std::string(kNode), false);
  f.scheduler->run();
  const auto messages = sse_data(*listen->stream);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(*json::get_string(messages[1], "method"), "notifications/resources/updated");
  EXPECT_EQ(*json::get_string(messages[1]["params"], "uri"), uri);
  EXPECT_EQ(messages[1]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].GetInt(), 5);
}

// When the server ends a listen stream (here the front stops; a token's end and the stream's
// lifetime take the same path), its last message is the listen request's result, so the client
// can tell a graceful end from a broken connection.
TEST_F(McpTest, Revision20260728ListenStreamTheServerEndsEndsWithItsResult) {
  const auto listen = stateless(f, tok, "subscriptions/listen", R"({"notifications":{"toolsListChanged":true}})");
  ASSERT_TRUE(listen->stream);
  f.front->shutdown();
  f.scheduler->run();
  EXPECT_TRUE(listen->stream->finished);
  const auto messages = sse_data(*listen->stream);
  ASSERT_EQ(messages.size(), 2u);
  const json::Value& last = messages.back();
  EXPECT_EQ(last["id"].GetInt(), 5);
  EXPECT_EQ(*json::get_string(last["result"], "resultType"), "complete");
  EXPECT_EQ(last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"].GetInt(), 5);
}

// Closing the response is 2026-07-28's cancel: the call in flight is cancelled as a 2025
// notifications/cancelled cancels it (no answer, one audit line); a call answered first is not.
TEST_F(McpTest, Revision20260728CancelsACallWhoseClientClosesItsResponse) {
  f.fleet->set_silent(std::string(kNode), true);
  const auto call = stateless(f, tok, "tools/call", echo_call(echo_tool(), "ping"));
  EXPECT_FALSE(call->reply);
  ASSERT_TRUE(call->peer_closed);
  call->peer_closed();
  f.advance(std::chrono::milliseconds(0));
  EXPECT_TRUE(call->abandoned);
  f.advance(std::chrono::milliseconds(10000));
  EXPECT_EQ(call->answers, 1);  // not the deadline's answer too
  ASSERT_EQ(f.audit->size(), 1u);
  EXPECT_EQ(*json::get_string(json::parse_strict((*f.audit)[0]).value(), "decision"), "cancel");

  f.fleet->set_silent(std::string(kNode), false);
  const auto answered = stateless(f, tok, "tools/call", echo_call(echo_tool(), "ping"));
  ASSERT_TRUE(answered->reply);
  answered->peer_closed();  // the client goes after its answer
  f.advance(std::chrono::milliseconds(0));
  EXPECT_FALSE(answered->abandoned);
  EXPECT_EQ(f.audit->size(), 2u);
}

TEST_F(McpTest, Revision20260728RefusesWhatItRemovedAndHeadersThatDisagree) {
  const auto ping = stateless(f, tok, "ping");
  EXPECT_EQ(ping->reply->status, 404);
  EXPECT_EQ(body_of(*ping)["error"]["code"].GetInt(), -32601);
  EXPECT_EQ(body_of(*ping)["id"].GetInt(), 5);
  const auto wrong_name = stateless(f, tok, "tools/call", echo_call(echo_tool()), {{"Mcp-Name", "fleet_find_nodes"}});
  EXPECT_EQ(wrong_name->reply->status, 400);
  EXPECT_EQ(body_of(*wrong_name)["error"]["code"].GetInt(), -32020);
  const auto no_method = stateless(f, tok, "tools/list", "{}", {{"Mcp-Method", ""}});
  EXPECT_EQ(body_of(*no_method)["error"]["code"].GetInt(), -32020);
  EXPECT_EQ(f.fleet->calls_received(), 0u);
  // An initialize asking for 2026-07-28 gets a session of the latest revision that has them.
  const auto init = f.post_mcp(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{}}})", "", tok);
  EXPECT_EQ(*json::get_string(body_of(*init)["result"], "protocolVersion"), "2025-11-25");
}

TEST_F(McpTest, Revision20260728SeesOnlyItsTenantsNodes) {
  const auto foreign = body_of(*stateless(f, tok, "tools/call", echo_call(echo_tool(kOther))));
  EXPECT_EQ(*json::get_string(foreign["error"]["data"], "code"), "E_MANIFEST_NOT_FOUND");
  const auto list = body_of(*stateless(f, tok, "tools/list"));
  EXPECT_EQ(json::to_string(list).find(kOther), std::string::npos);
  EXPECT_EQ(f.fleet->calls_received(), 0u);
}

// 2026-07-28's confirmation: an input_required result, answered in the repeated call.
TEST_F(McpTest, Revision20260728ConfirmsAnActuationInTheRequestItself) {
  const std::string set = R"({"name":"relay.)" + std::string(kNode) + R"(.relay0.set","arguments":{"on":true})";
  const auto ask = [&] {
    return body_of(*stateless(f, tok, "tools/call", set + "}", {}, R"({"elicitation":{}})"));
  };
  const auto repeat = [&](const std::string& state, std::string_view responses) {
    return body_of(*stateless(f, tok, "tools/call",
                              set + R"(,"requestState":")" + state + R"(","inputResponses":)" + std::string(responses) + "}",
                              {}, R"({"elicitation":{}})"));
  };
  const auto first = ask();
  ASSERT_EQ(*json::get_string(first["result"], "resultType"), "input_required") << json::to_string(first);
  EXPECT_EQ(*json::get_string(first["result"]["inputRequests"]["confirm"], "method"), "elicitation/create");
  const std::string state(*json::get_string(first["result"], "requestState"));

  const auto declined = repeat(std::string(*json::get_string(ask()["result"], "requestState")), R"({"confirm":{"action":"decline"}})");
  EXPECT_TRUE(declined["result"]["isError"].GetBool());
  EXPECT_NE(json::to_string(declined).find("E_SAFETY_DENIED"), std::string::npos);
  const auto unanswered = repeat(std::string(*json::get_string(ask()["result"], "requestState")), "{}");
  EXPECT_TRUE(unanswered["result"]["isError"].GetBool());
  std::string tampered = state;
  tampered[5] = tampered[5] == 'A' ? 'B' : 'A';
  const auto forged = repeat(tampered, R"({"confirm":{"action":"accept"}})");
  EXPECT_NE(json::to_string(forged).find("E_SAFETY_DENIED"), std::string::npos);
  EXPECT_EQ(f.fleet->calls_received(), 0u);  // nothing reached the device

  const auto accepted = repeat(state, R"({"confirm":{"action":"accept"}})");
  EXPECT_EQ(*json::get_string(accepted["result"], "resultType"), "complete");
  EXPECT_FALSE(accepted["result"]["isError"].GetBool()) << json::to_string(accepted);
  EXPECT_EQ(f.fleet->calls_received(), 1u);
  const std::string audit = [&] { std::string all; for (const auto& l : *f.audit) all += l + "\n"; return all; }();
  EXPECT_NE(audit.find("input_required:accept"), std::string::npos);
  EXPECT_NE(audit.find("input_required:decline"), std::string::npos);
  EXPECT_NE(audit.find("input_required:no answer"), std::string::npos);

  // A client that declares no elicitation gets the commit-token flow.
  const auto plain = body_of(*stateless(f, tok, "tools/call", set + "}"));
  EXPECT_FALSE(commit_token_of(plain).empty());
}

TEST_F(McpTest, EveryCallAndRefusalIsAuditedWithoutArguments) {
  const std::string sid = f.open_session(tok);
  f.rpc(sid, tok, "tools/call", echo_call(echo_tool(), "secret-payload"));
  f.rpc(sid, tok, "tools/call", echo_call(echo_tool(kOther), "secret-payload"));
  ASSERT_EQ(f.audit->size(), 2u);
  const auto ok = json::parse_strict((*f.audit)[0]).value();
  EXPECT_EQ(*json::get_string(ok, "decision"), "ok");
  EXPECT_EQ(*json::get_string(ok, "caller"), "alice");
  EXPECT_EQ(*json::get_string(ok, "tool"), echo_tool());
  EXPECT_TRUE(json::get_int64(ok, "latency_ms"));
  const auto refused = json::parse_strict((*f.audit)[1]).value();
  EXPECT_EQ(*json::get_string(refused, "decision"), "refuse");
  EXPECT_EQ(*json::get_string(refused, "code"), "E_MANIFEST_NOT_FOUND");
  for (const auto& line : *f.audit) EXPECT_EQ(line.find("secret-payload"), std::string::npos);
}

}  // namespace
}  // namespace fleetmcp::http::testing
