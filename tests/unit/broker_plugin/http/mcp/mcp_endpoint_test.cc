// The MCP Streamable HTTP layer of the HTTP front (docs/protocol.md §7,
// docs/platform-notes.md §H1–§H3), driven through the front's handler with in-memory exchanges
// over an in-memory fleet: what an MCP client sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "tests/support/front_fixture.h"

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

std::string echo_call(std::string_view tool, std::string_view message = "hi") {
  return R"({"name":")" + std::string(tool) + R"(","arguments":{"message":")" + std::string(message) + R"("}})";
}

std::string echo_tool(std::string_view node = kNode) { return "sysecho." + std::string(node) + ".echo.invoke"; }

class McpTest : public ::testing::Test {
 protected:
  FrontFixture f;
  std::string tok = f.token();
};

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
  const auto unknown = f.rpc(sid, tok, "prompts/list", "");
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
  EXPECT_TRUE(served_id.starts_with("mcp://schemas/system.echo.invoke.output@1.0.0/served-")) << served_id;
  EXPECT_EQ(served_id.size(), std::string("mcp://schemas/system.echo.invoke.output@1.0.0/served-").size() + 16);
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

TEST_F(McpTest, MissingScopeIs403WithAStepUpChallenge) {
  const std::string reader = f.token("acme", "tools:call:read_only");
  const std::string sid = f.open_session(reader);
  const auto ex = f.rpc(sid, reader, "tools/call", R"({"name":"relay.)" + std::string(kNode) + R"(.relay0.set","arguments":{"on":true}})");
  EXPECT_EQ(ex->reply->status, 403);
  const auto challenge = header_of(*ex->reply, "WWW-Authenticate");
  ASSERT_TRUE(challenge);
  EXPECT_NE(challenge->find("error=\"insufficient_scope\""), std::string::npos);
  EXPECT_NE(challenge->find("scope=\"tools:call:physical_actuation\""), std::string::npos);
  EXPECT_NE(challenge->find("resource_metadata="), std::string::npos);
  EXPECT_EQ(*json::get_string(body_of(*ex)["error"]["data"], "code"), "E_SAFETY_DENIED");
}

TEST_F(McpTest, BadArgumentsNameTheFieldAndNeverReachTheDevice) {
  const std::string sid = f.open_session(tok);
  const auto body = body_of(*f.rpc(sid, tok, "tools/call", R"({"name":")" + echo_tool() + R"(","arguments":{"message":7}})"));
  const json::Value& r = body["result"];
  EXPECT_TRUE(r["isError"].GetBool());
  EXPECT_FALSE(r.HasMember("structuredContent"));  // the tool has an outputSchema the envelope would not match
  const json::Value& e = r["_meta"]["io.fleetmcp/error"];
  EXPECT_EQ(*json::get_string(e, "code"), "E_MANIFEST_INVALID");
  EXPECT_NE(std::string(*json::get_string(e, "message")).find("/message"), std::string::npos);
  EXPECT_EQ(json::parse_strict(r["content"][0]["text"].GetString()).value(), e);
  EXPECT_EQ(f.fleet->calls_received(), 0u);
}

TEST_F(McpTest, ByKindBadArgumentsAreNamedAsTheClientWroteThem) {
  // system_echo_invoke takes {node_id, arguments}: the gate validates the inner arguments (once)
  // and names the field /arguments/message, not /message.
  const std::string sid = f.open_session(tok);
  const auto body = body_of(*f.rpc(sid, tok, "tools/call",
                                    R"({"name":"system_echo_invoke","arguments":{"node_id":")" + std::string(kNode) +
                                        R"(","arguments":{"message":7}}})"));
  const json::Value& e = body["result"]["_meta"]["io.fleetmcp/error"];
  EXPECT_EQ(*json::get_string(e, "code"), "E_MANIFEST_INVALID");
  const std::string message(*json::get_string(e, "message"));
  EXPECT_EQ(message.rfind("invalid arguments at /arguments/message: ", 0), 0u) << message;
  EXPECT_NE(std::string(*json::get_string(e, "suggested_fix")).find("/arguments/message"), std::string::npos);
  EXPECT_EQ(f.fleet->calls_received(), 0u);
  // A good one reaches the device.
  const auto ok = body_of(*f.rpc(sid, tok, "tools/call",
                                 R"({"name":"system_echo_invoke","arguments":{"node_id":")" + std::string(kNode) +
                                     R"(","arguments":{"message":"by kind"}}})"));
  EXPECT_EQ(*json::get_string(ok["result"]["structuredContent"], "message"), "by kind");
}

TEST_F(McpTest, OfflineNodeFailsAtOnce) {
  f.fleet->set_online(std::string(kNode), false);
  const std::string sid = f.open_session(tok);
  const auto ex = f.rpc(sid, tok, "tools/call", echo_call(echo_tool()));
  ASSERT_TRUE(ex->reply);  // answered without any time passing
  EXPECT_EQ(*json::get_string(body_of(*ex)["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_NODE_OFFLINE");
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

TEST_F(McpTest, RateLimitRefusesAtOnceWithRetryAfter) {
  const std::string sid = f.open_session(tok);
  // relay0 get: 2 rps, burst 2.
  const std::string get = R"({"name":"relay.)" + std::string(kNode) + R"(.relay0.get","arguments":{}})";
  for (int i = 0; i < 2; ++i) EXPECT_FALSE(body_of(*f.rpc(sid, tok, "tools/call", get))["result"]["isError"].GetBool());
  const auto limited = body_of(*f.rpc(sid, tok, "tools/call", get));
  const json::Value& e = limited["result"]["_meta"]["io.fleetmcp/error"];
  EXPECT_EQ(*json::get_string(e, "code"), "E_RATE_LIMITED");
  EXPECT_EQ(*json::get_int64(e, "retry_after_ms"), 500);
  f.advance(std::chrono::milliseconds(500));
  EXPECT_FALSE(body_of(*f.rpc(sid, tok, "tools/call", get))["result"]["isError"].GetBool());
}

TEST_F(McpTest, ConcurrencyLimitCountsCallsInFlight) {
  f.fleet->set_silent(std::string(kNode), true);
  const std::string sid = f.open_session(tok);
  const std::string get = R"({"name":"relay.)" + std::string(kNode) + R"(.relay0.get","arguments":{}})";
  const auto first = f.rpc(sid, tok, "tools/call", get, 1);  // max_concurrency 1, still waiting
  EXPECT_FALSE(first->reply);
  const auto second = body_of(*f.rpc(sid, tok, "tools/call", get, 2));
  EXPECT_EQ(*json::get_string(second["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_RATE_LIMITED");
  f.advance(std::chrono::milliseconds(5000));  // the first one times out and frees its slot
  ASSERT_TRUE(first->reply);
  f.fleet->set_silent(std::string(kNode), false);
  EXPECT_FALSE(body_of(*f.rpc(sid, tok, "tools/call", get, 3))["result"]["isError"].GetBool());
}

std::string commit_token_of(const json::Document& body) {
  const std::string fix(*json::get_string(body["result"]["_meta"]["io.fleetmcp/error"], "suggested_fix"));
  const size_t at = fix.find("commit_token=\"");
  return at == std::string::npos ? "" : fix.substr(at + 14, fix.find('"', at + 14) - at - 14);
}

TEST_F(McpTest, PhysicalActuationIsTwoPhase) {
  const std::string sid = f.open_session(tok);
  const std::string name = "relay." + std::string(kNode) + ".relay0.set";
  const auto first = body_of(*f.rpc(sid, tok, "tools/call", R"({"name":")" + name + R"(","arguments":{"on":true}})"));
  EXPECT_EQ(*json::get_string(first["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_SAFETY_DENIED");
  EXPECT_EQ(f.fleet->calls_received(), 0u);
  const std::string ct = commit_token_of(first);
  ASSERT_FALSE(ct.empty());

  // Other arguments: refused (and the token is spent).
  const auto other_args = body_of(*f.rpc(sid, tok, "tools/call", R"({"name":")" + name + R"(","arguments":{"on":false,"commit_token":")" + ct + "\"}}"));
  EXPECT_TRUE(other_args["result"]["isError"].GetBool());
  const std::string ct2 = commit_token_of(other_args);
  // Another caller with the right arguments: refused.
  const std::string bob = f.token("acme", kAllScopes, "bob");
  const std::string bob_sid = f.open_session(bob);
  EXPECT_TRUE(body_of(*f.rpc(bob_sid, bob, "tools/call", R"({"name":")" + name + R"(","arguments":{"on":false,"commit_token":")" + ct2 + "\"}}"))["result"]["isError"].GetBool());
  EXPECT_EQ(f.fleet->calls_received(), 0u);

  // A fresh token, same caller, tool and arguments (any key order): executes once.
  f.advance(std::chrono::milliseconds(1000));  // the refused confirmations spent the rate
  const auto again = body_of(*f.rpc(sid, tok, "tools/call", R"({"name":")" + name + R"(","arguments":{"on":true}})"));
  const std::string ct3 = commit_token_of(again);
  const std::string confirmed = R"({"name":")" + name + R"(","arguments":{"commit_token":")" + ct3 + R"(","on":true}})";
  const auto ok = body_of(*f.rpc(sid, tok, "tools/call", confirmed));
  EXPECT_FALSE(ok["result"]["isError"].GetBool());
  EXPECT_TRUE(ok["result"]["structuredContent"]["on"].GetBool());
  EXPECT_EQ(f.fleet->calls_received(), 1u);
  f.advance(std::chrono::milliseconds(1000));  // past the rate limit
  EXPECT_TRUE(body_of(*f.rpc(sid, tok, "tools/call", confirmed))["result"]["isError"].GetBool());  // single use
  EXPECT_EQ(f.fleet->calls_received(), 1u);
}

// Doc 05 addendum §6.1: force=true overrides the device's check that running services depend on
// the unit, so on a reversible capability it needs tools:call:physical_actuation and the two-phase
// confirmation; without force the call goes straight to the device.
TEST_F(McpTest, AForcedServiceStopNeedsThePhysicalScopeAndConfirmation) {
  const std::string node = "01hzx9k3m4p7q8r9s0t1v2w3xb";
  f.fleet->add_node("acme", node, {{"web", "service.unit", {"get", "invoke", "set"}, SafetyClass::kReversible, {100, 4, 10000}}});
  const std::string name = "svc." + node + ".web.invoke";
  const auto call = [&](const std::string& token, const std::string& session, const std::string& arguments) {
    return f.rpc(session, token, "tools/call", R"({"name":")" + name + R"(","arguments":)" + arguments + "}");
  };
  const std::string forced = R"({"action":"stop","force":true,"confirm_breaking_dependencies":true})";
  const std::string operator_token = f.token("acme", "tools:call:read_only tools:call:reversible");
  const std::string operator_sid = f.open_session(operator_token);
  // A plain stop needs only the reversible scope and reaches the device.
  call(operator_token, operator_sid, R"({"action":"stop"})");
  EXPECT_EQ(f.fleet->calls_received(), 1u);
  // Forced: the physical actuation scope.
  const auto no_scope = call(operator_token, operator_sid, forced);
  ASSERT_EQ(no_scope->reply->status, 403);
  const auto challenge = header_of(*no_scope->reply, "WWW-Authenticate");
  ASSERT_TRUE(challenge);
  EXPECT_NE(challenge->find("scope=\"tools:call:physical_actuation\""), std::string::npos);
  // force without the confirmation of the breakage: the input schema refuses it.
  const std::string sid = f.open_session(tok);
  const auto unconfirmed = body_of(*call(tok, sid, R"({"action":"stop","force":true})"));
  EXPECT_EQ(*json::get_string(unconfirmed["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_MANIFEST_INVALID");
  // With the scope: two-phase, and the commit token confirms it.
  const auto first = body_of(*call(tok, sid, forced));
  const json::Value& refusal = first["result"]["_meta"]["io.fleetmcp/error"];
  EXPECT_EQ(*json::get_string(refusal, "code"), "E_SAFETY_DENIED");
  EXPECT_NE(std::string(*json::get_string(refusal, "message")).find("force=true"), std::string::npos);
  EXPECT_EQ(f.fleet->calls_received(), 1u);
  const std::string ct = commit_token_of(first);
  ASSERT_FALSE(ct.empty());
  call(tok, sid, R"({"action":"stop","force":true,"confirm_breaking_dependencies":true,"commit_token":")" + ct + "\"}");
  EXPECT_EQ(f.fleet->calls_received(), 2u);
  // tools/list offers commit_token beside force.
  const auto list = body_of(*f.rpc(sid, tok, "tools/list", "{}"));
  bool seen = false;
  for (const auto& t : list["result"]["tools"].GetArray()) {
    if (std::string(t["name"].GetString()) != name) continue;
    seen = true;
    EXPECT_TRUE(t["inputSchema"]["properties"].HasMember("commit_token"));
    EXPECT_TRUE(t["inputSchema"]["properties"].HasMember("force"));
  }
  EXPECT_TRUE(seen);
}

TEST_F(McpTest, AConfirmedCallThatMeetsTheRateLimitKeepsItsToken) {
  const std::string sid = f.open_session(tok);
  const std::string name = "relay." + std::string(kNode) + ".relay0.set";  // 2 calls/s
  const std::string ask = R"({"name":")" + name + R"(","arguments":{"on":true}})";
  const std::string confirm = R"({"name":")" + name + R"(","arguments":{"on":true,"commit_token":")";
  std::vector<std::string> tokens;
  for (int i = 0; i < 3; ++i) tokens.push_back(commit_token_of(body_of(*f.rpc(sid, tok, "tools/call", ask))));
  for (int i = 0; i < 2; ++i) {
    EXPECT_FALSE(body_of(*f.rpc(sid, tok, "tools/call", confirm + tokens[i] + "\"}}"))["result"]["isError"].GetBool());
  }
  const auto limited = body_of(*f.rpc(sid, tok, "tools/call", confirm + tokens[2] + "\"}}"));
  EXPECT_EQ(*json::get_string(limited["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_RATE_LIMITED");
  f.advance(std::chrono::milliseconds(1000));
  EXPECT_FALSE(body_of(*f.rpc(sid, tok, "tools/call", confirm + tokens[2] + "\"}}"))["result"]["isError"].GetBool())
      << "the rate-limited confirmation did not spend its token";
  EXPECT_EQ(f.fleet->calls_received(), 3u);
}

TEST_F(McpTest, CommitTokensExpireAfter30Seconds) {
  const std::string sid = f.open_session(tok);
  const std::string name = "relay." + std::string(kNode) + ".relay0.set";
  const std::string ct = commit_token_of(body_of(*f.rpc(sid, tok, "tools/call", R"({"name":")" + name + R"(","arguments":{"on":true}})")));
  f.advance(std::chrono::milliseconds(30000));
  const auto late = body_of(*f.rpc(sid, tok, "tools/call", R"({"name":")" + name + R"(","arguments":{"on":true,"commit_token":")" + ct + "\"}}"));
  EXPECT_EQ(*json::get_string(late["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_SAFETY_DENIED");
  EXPECT_EQ(f.fleet->calls_received(), 0u);
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

// by_kind groups the tenant's tools once per fleet snapshot (kind_tools.h): a list after the
// fleet changed shows the change, a list of the same snapshot the same tools.
TEST_F(McpTest, ByKindListFollowsTheFleetSnapshot) {
  FrontFixture by_kind(FrontOptionList{{"http_tools_mode", "by_kind"}});
  const std::string t = by_kind.token();
  const std::string sid = by_kind.open_session(t);
  const auto names = [&] {
    std::set<std::string> out;
    const auto body = body_of(*by_kind.rpc(sid, t, "tools/list", ""));
    for (const auto& tool : body["result"]["tools"].GetArray()) out.insert(tool["name"].GetString());
    return out;
  };
  const auto before = names();
  EXPECT_TRUE(before.count("system_echo_invoke"));
  EXPECT_FALSE(before.count("gpio_pin_get"));
  EXPECT_EQ(names(), before);
  by_kind.fleet->add_node("acme", "01hzx9k3m4p7q8r9s0t1v2w3xb", {{"led", "gpio.pin", {"get"}, SafetyClass::kReadOnly, {}}});
  by_kind.scheduler->run();
  const auto after = names();
  EXPECT_TRUE(after.count("gpio_pin_get"));
  EXPECT_TRUE(after.count("system_echo_invoke"));
}

// by_kind (the default mode) pages like per_node: every tool once, in order, the last page without a
// cursor; a cursor it did not issue, or one per_node issued, is refused (RFC 004 A.15). Compact mode
// never issues one, so it refuses any. Names fit the 64 characters clients keep in every mode.
TEST_F(McpTest, ByKindToolsListPagesThroughEveryToolOnceAndRefusesForeignCursors) {
  FrontFixture by_kind(FrontOptionList{{"http_tools_mode", "by_kind"}, {"http_page_size", "2"}});
  const std::string t = by_kind.token();
  const std::string sid = by_kind.open_session(t);
  std::vector<std::string> names;
  std::string params = "{}";
  int pages = 0;
  for (; pages < 10; ++pages) {
    const auto body = body_of(*by_kind.rpc(sid, t, "tools/list", params));
    ASSERT_TRUE(body.HasMember("result")) << json::to_string(body);
    EXPECT_LE(body["result"]["tools"].Size(), 2u);
    for (const auto& tool : body["result"]["tools"].GetArray()) names.emplace_back(tool["name"].GetString());
    const auto cursor = json::get_string(body["result"], "nextCursor");
    if (!cursor) break;
    params = R"({"cursor":")" + std::string(*cursor) + "\"}";
  }
  // acme's kind tools in name order (echo, metrics snapshot and subscribe, the relay's get and set),
  // then the two fleet tools.
  EXPECT_EQ(names, (std::vector<std::string>{"system_echo_invoke", "system_metrics_snapshot", "system_metrics_subscribe",
                                             "test_relay_get", "test_relay_set", "fleet_find_nodes", "fleet_read"}));
  EXPECT_EQ(pages, 3);
  for (const auto& n : names) EXPECT_LE(n.size(), 64u) << n;

  const auto refused = [&](FrontFixture& front, const std::string& session, const std::string& token,
                           const std::string& list_params) {
    const auto body = body_of(*front.rpc(session, token, "tools/list", list_params));
    return body.HasMember("error") && body["error"]["code"].GetInt() == -32602;
  };
  EXPECT_TRUE(refused(by_kind, sid, t, R"({"cursor":"c3lzZWNoby4w"})"));
  EXPECT_TRUE(refused(by_kind, sid, t, R"({"cursor":7})"));
  // A cursor per_node issued names a per_node tool: not one of this list's.
  const std::string per_node_cursor = [&] {
    FrontFixture per_node(FrontOptionList{{"http_page_size", "2"}});
    const std::string pt = per_node.token();
    const auto body = body_of(*per_node.rpc(per_node.open_session(pt), pt, "tools/list", "{}"));
    return std::string(*json::get_string(body["result"], "nextCursor"));
  }();
  EXPECT_TRUE(refused(by_kind, sid, t, R"({"cursor":")" + per_node_cursor + "\"}"));

  FrontFixture compact(FrontOptionList{{"http_tools_mode", "compact"}});
  const std::string ct = compact.token();
  const std::string csid = compact.open_session(ct);
  EXPECT_FALSE(refused(compact, csid, ct, "{}"));
  EXPECT_TRUE(refused(compact, csid, ct, R"({"cursor":"c3lzZWNoby4w"})"));
}

TEST_F(McpTest, CompactModeOffersThreeFleetToolsThatReachTheSameGate) {
  FrontFixture compact(FrontOptionList{{"http_tools_mode", "compact"}});
  const std::string t = compact.token();
  const std::string sid = compact.open_session(t);
  const auto list = body_of(*compact.rpc(sid, t, "tools/list", ""));
  std::vector<std::string> names;
  for (const auto& tool : list["result"]["tools"].GetArray()) names.emplace_back(tool["name"].GetString());
  EXPECT_EQ(names, (std::vector<std::string>{"fleet_find_nodes", "fleet_describe_node", "fleet_call"}));
  EXPECT_FALSE(list["result"].HasMember("nextCursor"));

  const auto found = body_of(*compact.rpc(sid, t, "tools/call", R"({"name":"fleet_find_nodes","arguments":{"kind":"test.relay"}})"));
  const json::Value& nodes = found["result"]["structuredContent"]["nodes"];
  ASSERT_EQ(nodes.Size(), 1u);
  EXPECT_EQ(*json::get_string(nodes[0], "node_id"), kNode);

  const auto described = body_of(*compact.rpc(sid, t, "tools/call", R"({"name":"fleet_describe_node","arguments":{"node_id":")" + std::string(kNode) + "\"}}"));
  EXPECT_EQ(described["result"]["structuredContent"]["capabilities"].Size(), 3u);
  const auto foreign = body_of(*compact.rpc(sid, t, "tools/call", R"({"name":"fleet_describe_node","arguments":{"node_id":")" + std::string(kOther) + "\"}}"));
  EXPECT_TRUE(foreign["result"]["isError"].GetBool());

  const auto called = body_of(*compact.rpc(sid, t, "tools/call", R"({"name":"fleet_call","arguments":{"node_id":")" + std::string(kNode) +
                                                                  R"(","cap_id":"echo","verb":"invoke","arguments":{"message":"via fleet_call"}}})"));
  EXPECT_EQ(*json::get_string(called["result"]["structuredContent"], "message"), "via fleet_call");
  const auto bad = body_of(*compact.rpc(sid, t, "tools/call", R"({"name":"fleet_call","arguments":{"node_id":")" + std::string(kNode) +
                                                              R"(","cap_id":"echo","verb":"invoke","arguments":{}}})"));
  EXPECT_EQ(*json::get_string(bad["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_MANIFEST_INVALID");
  // The missing argument is named where the client wrote the arguments.
  EXPECT_NE(std::string(*json::get_string(bad["result"]["_meta"]["io.fleetmcp/error"], "message")).find("at /arguments:"),
            std::string::npos);
  // The projected name still works in compact mode.
  EXPECT_FALSE(body_of(*compact.rpc(sid, t, "tools/call", echo_call(echo_tool())))["result"]["isError"].GetBool());
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
