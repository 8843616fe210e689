// ToolSurface::resolve through MCP and RFC-0009: an unknown tool name is refused as before (the
// same code, JSON-RPC -32602, HTTP 404) and suggests the nearest names the caller may call, never
// another tenant's.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

// The JSON-RPC error's message and the envelope's suggested_fix of a tools/call of `name` (with
// by_kind arguments for a by_kind name, which resolve_kind_call reads before the name).
std::pair<std::string, std::string> unknown(FrontFixture& f, const std::string& token, const std::string& name) {
  const std::string call = name.find_first_of(".-") != std::string::npos
                               ? echo_call(name)
                               : R"({"name":")" + name + R"(","arguments":{"node_id":")" + std::string(kNode) +
                                     R"(","arguments":{"message":"hi"}}})";
  const auto body = body_of(*f.rpc(f.open_session(token), token, "tools/call", call));
  if (!body.HasMember("error")) {
    ADD_FAILURE() << name << " was not refused as an unknown tool";
    return {};
  }
  EXPECT_EQ(body["error"]["code"].GetInt(), -32602) << name;
  EXPECT_EQ(*json::get_string(body["error"]["data"], "code"), "E_MANIFEST_NOT_FOUND") << name;
  return {body["error"]["message"].GetString(), std::string(*json::get_string(body["error"]["data"], "suggested_fix"))};
}

TEST_F(McpTest, AnUnknownToolSuggestsTheNearestNames) {
  FrontFixture by_kind(FrontOptionList{{"http_tools_mode", "by_kind"}});
  const std::string t = by_kind.token();
  const auto [message, fix] = unknown(by_kind, t, "system_echo_pin");
  EXPECT_EQ(message, "Unknown tool: system_echo_pin; did you mean system_echo_ping?");
  EXPECT_EQ(fix.rfind("call one of system_echo_ping, or call tools/list", 0), 0u) << fix;
  EXPECT_EQ(unknown(by_kind, t, "fleet_find_node").first, "Unknown tool: fleet_find_node; did you mean fleet_find_nodes?");
  // At most three, nearest first; a per-node name's near misses are per-node names.
  const auto dotted = unknown(f, tok, "sysecho." + std::string(kNode) + ".echo.invok").first;
  EXPECT_EQ(dotted.find("did you mean " + echo_tool() + ", " + echo_tool(kNode2)), dotted.find("did you mean ")) << dotted;
  // A word near nothing suggests nothing: the message is as it always was.
  EXPECT_EQ(unknown(f, tok, "reboot_everything").first, "Unknown tool: reboot_everything");
}

TEST_F(McpTest, AnUnknownToolNeverSuggestsAnotherTenantsTools) {
  // kOther (tenant "other") differs from kNode by one letter: acme sees its own near names only.
  const std::string foreign = echo_tool(kOther);
  const auto [message, fix] = unknown(f, tok, foreign.substr(0, foreign.size() - 1));
  EXPECT_EQ(message.find(kOther, message.find(';')), std::string::npos) << message;
  EXPECT_EQ(fix.find(kOther), std::string::npos) << fix;
  EXPECT_NE(message.find(echo_tool()), std::string::npos) << message;
  // And "other" sees none of acme's.
  const std::string other = f.token("other");
  const auto theirs = unknown(f, other, echo_tool().substr(0, echo_tool().size() - 1)).first;
  EXPECT_EQ(theirs.find(kNode, theirs.find(';')), std::string::npos) << theirs;
  EXPECT_NE(theirs.find(echo_tool(kOther)), std::string::npos) << theirs;
}

TEST_F(McpTest, Rfc0009UnknownToolSuggestsTheNearestProjectedNames) {
  const std::string name = echo_tool().substr(0, echo_tool().size() - 1);
  const auto ex = f.post_tools_call(tok, R"({"tool":")" + name + R"(","arguments":{"message":"hi"}})");
  EXPECT_EQ(ex->reply->status, 404);
  const auto body = body_of(*ex);
  EXPECT_EQ(*json::get_string(body, "code"), "E_MANIFEST_NOT_FOUND");
  const std::string message(*json::get_string(body, "message"));
  EXPECT_EQ(message.rfind("Unknown tool: " + name + "; did you mean " + echo_tool(), 0), 0u) << message;
}

// Issue 37 item 7: tools/list offers a token only what it may call (keep_callable): a read-only
// token sees the reads, a physical relay's get among them, and not its set.
TEST_F(McpTest, AReadOnlyTokenListsOnlyTheToolsItMayCall) {
  const auto names = [&](const std::string& token) {
    const std::string sid = f.open_session(token);
    std::set<std::string> out;
    const auto listed = body_of(*f.rpc(sid, token, "tools/list", ""));  // outlives the loop over it
    for (const auto& t : listed["result"]["tools"].GetArray()) out.insert(t["name"].GetString());
    return out;
  };
  const std::string set = "relay." + std::string(kNode) + ".relay0.set";
  const std::string get = "relay." + std::string(kNode) + ".relay0.get";
  const auto all = names(tok);
  const auto reader = names(f.token("acme", "devices:read tools:call:read_only"));
  EXPECT_TRUE(all.contains(set) && all.contains(get));
  EXPECT_TRUE(reader.contains(get) && reader.contains(echo_tool()));
  EXPECT_FALSE(reader.contains(set));
  EXPECT_LT(reader.size(), all.size());
  EXPECT_TRUE(names(f.token("acme", "devices:read")).empty());  // no call scope: nothing to call
}

// Issue 37 item 5: what tools/list serves (names, descriptions, every schema's words) is for the
// model: no internal notes, no endpoints, no scope names, no spec keywords. One node with every
// kind of the registry, listed in both typed modes.
TEST(ServedWords, ToolsListCarriesNoInternalNotes) {
  for (const char* mode : {"by_kind", "per_node"}) {
    FrontFixture f{FrontOptionList{{"http_tools_mode", mode}}};
    std::vector<MemoryCapability> caps;
    for (const KindSpec& k : test_registry()->kinds().all()) {
      if (k.kind.starts_with("test.")) continue;
      std::vector<std::string> verbs;
      for (const VerbSpec& v : k.verbs) verbs.push_back(v.verb);
      caps.push_back({k.kind_short + "0", k.kind, verbs});
    }
    f.fleet->add_node("acme", "01hzx9k3m4p7q8r9s0t1v2w3xb", caps);  // every kind of the registry
    const std::string tok = f.token();
    const std::string listed = f.rpc(f.open_session(tok), tok, "tools/list", "")->reply->body;
    ASSERT_NE(listed.find("camera"), std::string::npos) << mode << ": " << listed.substr(0, 400);
    for (const std::string_view internal :
         {"MUST", "DO's", "gateway cross", "the gateway then", "fanout", "runaway", "abuse", "DES" "IGN", "tools:call:", "POST /",
          "GET /", "$devices/", "does NOT", "Doc 05", "RFC-"}) {
      const size_t at = listed.find(internal);
      EXPECT_EQ(at, std::string::npos) << mode << " serves \"" << internal << "\": "
                                       << (at == std::string::npos ? "" : listed.substr(at > 120 ? at - 120 : 0, 240));
    }
  }
}

}  // namespace
}  // namespace fleetmcp::http::testing
