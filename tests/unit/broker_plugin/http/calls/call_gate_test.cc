// CallGate, through an MCP tools/call (docs/protocol.md §7): the scope, argument validation, an
// offline node, the rate and concurrency limits, and the two-phase confirmation with commit tokens.
#include <gtest/gtest.h>

#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

TEST_F(McpTest, MissingScopeIs403WithAStepUpChallenge) {
  const std::string reader = f.token("acme", "tools:call:read_only");
  const std::string sid = f.open_session(reader);
  const auto ex = f.rpc(sid, reader, "tools/call", R"({"name":"relay.)" + std::string(kNode) + R"(.relay0.set","arguments":{"on":true}})");
  EXPECT_EQ(ex->reply->status, 403);
  const auto challenge = header_of(*ex->reply, "WWW-Authenticate");
  ASSERT_TRUE(challenge);
  EXPECT_NE(challenge->find("error=\"insufficient_scope\""), std::string::npos);
  // Every scope the call needs, the held one too, so a client can ask for them at once (step-up).
  EXPECT_NE(challenge->find("scope=\"tools:call:read_only tools:call:physical_actuation\""), std::string::npos);
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
  EXPECT_EQ(*json::get_string(e, "code"), "E_INVALID_ARGUMENTS");
  EXPECT_NE(std::string(*json::get_string(e, "message")).find("/message"), std::string::npos);
  EXPECT_EQ(json::parse_strict(r["content"][0]["text"].GetString()).value(), e);
  EXPECT_EQ(f.fleet->calls_received(), 0u);
}

TEST_F(McpTest, OfflineNodeFailsAtOnce) {
  f.fleet->set_online(std::string(kNode), false);
  const std::string sid = f.open_session(tok);
  const auto ex = f.rpc(sid, tok, "tools/call", echo_call(echo_tool()));
  ASSERT_TRUE(ex->reply);  // answered without any time passing
  EXPECT_EQ(*json::get_string(body_of(*ex)["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_NODE_OFFLINE");
  EXPECT_EQ(f.fleet->calls_received(), 0u);
}

TEST_F(McpTest, RateLimitRefusesAtOnceWithRetryAfter) {
  const std::string sid = f.open_session(tok);
  // relay0 get: 2 rps, burst 2, of which a read leaves the last token to relay0's sets (call_limiter.h).
  const std::string get = R"({"name":"relay.)" + std::string(kNode) + R"(.relay0.get","arguments":{}})";
  EXPECT_FALSE(body_of(*f.rpc(sid, tok, "tools/call", get))["result"]["isError"].GetBool());
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
  EXPECT_NE(challenge->find("scope=\"tools:call:read_only tools:call:reversible tools:call:physical_actuation\""),
            std::string::npos);
  // force without the confirmation of the breakage: the input schema refuses it.
  const std::string sid = f.open_session(tok);
  const auto unconfirmed = body_of(*call(tok, sid, R"({"action":"stop","force":true})"));
  EXPECT_EQ(*json::get_string(unconfirmed["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_INVALID_ARGUMENTS");
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

// Issue 33, item 5: nobody is asked to confirm a call the rate bucket would refuse now.
TEST_F(McpTest, NoCommitTokenForACallTheRateLimitWouldRefuse) {
  const std::string sid = f.open_session(tok);
  const std::string name = "relay." + std::string(kNode) + ".relay0.set";  // 2 calls/s
  const std::string ask = R"({"name":")" + name + R"(","arguments":{"on":true}})";
  const std::string confirm = R"({"name":")" + name + R"(","arguments":{"on":true,"commit_token":")";
  for (int i = 0; i < 2; ++i) {
    const std::string ct = commit_token_of(body_of(*f.rpc(sid, tok, "tools/call", ask)));
    EXPECT_FALSE(body_of(*f.rpc(sid, tok, "tools/call", confirm + ct + "\"}}"))["result"]["isError"].GetBool());
  }
  const auto limited = body_of(*f.rpc(sid, tok, "tools/call", ask));
  const json::Value& e = limited["result"]["_meta"]["io.fleetmcp/error"];
  EXPECT_EQ(*json::get_string(e, "code"), "E_RATE_LIMITED");
  EXPECT_EQ(*json::get_int64(e, "retry_after_ms"), 500);
  EXPECT_EQ(std::string(*json::get_string(e, "suggested_fix")).find("commit_token"), std::string::npos);
  f.advance(std::chrono::milliseconds(500));
  EXPECT_FALSE(commit_token_of(body_of(*f.rpc(sid, tok, "tools/call", ask))).empty());
  EXPECT_EQ(f.fleet->calls_received(), 2u);
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

}  // namespace
}  // namespace fleetmcp::http::testing
