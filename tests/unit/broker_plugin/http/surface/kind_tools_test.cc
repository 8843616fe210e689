// KindTools, the by_kind tool surface, through MCP: the list follows the fleet snapshot, pages once
// through every tool, and names bad arguments as the client wrote them.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

TEST_F(McpTest, ByKindBadArgumentsAreNamedAsTheClientWroteThem) {
  // system_echo_ping takes {node_id, arguments}: the gate validates the inner arguments (once)
  // and names the field /arguments/message, not /message.
  const std::string sid = f.open_session(tok);
  const auto body = body_of(*f.rpc(sid, tok, "tools/call",
                                    R"({"name":"system_echo_ping","arguments":{"node_id":")" + std::string(kNode) +
                                        R"(","arguments":{"message":7}}})"));
  const json::Value& e = body["result"]["_meta"]["io.fleetmcp/error"];
  EXPECT_EQ(*json::get_string(e, "code"), "E_INVALID_ARGUMENTS");
  const std::string message(*json::get_string(e, "message"));
  EXPECT_EQ(message.rfind("invalid arguments at /arguments/message: ", 0), 0u) << message;
  EXPECT_NE(std::string(*json::get_string(e, "suggested_fix")).find("/arguments/message"), std::string::npos);
  EXPECT_EQ(f.fleet->calls_received(), 0u);
  // A node the caller has no such tool on is not found (docs/protocol.md §9, D17), not a bad argument.
  const auto unknown = body_of(*f.rpc(sid, tok, "tools/call",
                                      R"({"name":"system_echo_ping","arguments":{"node_id":"01jzzzzzzzzzzzzzzzzzzzzzzz",)"
                                      R"("arguments":{"message":"x"}}})"));
  EXPECT_EQ(json::get_string(unknown["result"]["_meta"]["io.fleetmcp/error"], "code").value_or(""), "E_MANIFEST_NOT_FOUND");
  // A good one reaches the device.
  const auto ok = body_of(*f.rpc(sid, tok, "tools/call",
                                 R"({"name":"system_echo_ping","arguments":{"node_id":")" + std::string(kNode) +
                                     R"(","arguments":{"message":"by kind"}}})"));
  EXPECT_EQ(*json::get_string(ok["result"]["structuredContent"], "message"), "by kind");
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
  EXPECT_TRUE(before.count("system_echo_ping"));
  EXPECT_FALSE(before.count("gpio_pin_get"));
  EXPECT_EQ(names(), before);
  by_kind.fleet->add_node("acme", "01hzx9k3m4p7q8r9s0t1v2w3xb", {{"led", "gpio.pin", {"get"}, SafetyClass::kReadOnly, {}}});
  by_kind.scheduler->run();
  const auto after = names();
  EXPECT_TRUE(after.count("gpio_pin_get"));
  EXPECT_TRUE(after.count("system_echo_ping"));
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
  EXPECT_EQ(names, (std::vector<std::string>{"system_echo_ping", "system_metrics_snapshot", "system_metrics_subscribe",
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

// Issue 37 item 5: a by_kind tool is named by what it does (the registry's action) under a plain
// title, and the name before that ({kind}_{verb}) still calls the same tool, though unlisted.
TEST_F(McpTest, ByKindToolsAreNamedByTheirActionAndTheOldNamesStillCall) {
  FrontFixture by_kind(FrontOptionList{{"http_tools_mode", "by_kind"}});
  const std::string t = by_kind.token();
  const std::string sid = by_kind.open_session(t);
  const auto body = body_of(*by_kind.rpc(sid, t, "tools/list", ""));
  std::map<std::string, std::string> titles;
  for (const auto& tool : body["result"]["tools"].GetArray()) {
    titles[tool["name"].GetString()] = std::string(json::get_string(tool, "title").value_or(""));
  }
  EXPECT_FALSE(titles.count("system_echo_invoke"));
  ASSERT_TRUE(titles.count("system_echo_ping"));
  EXPECT_EQ(titles["system_echo_ping"], "Check a device answers");
  EXPECT_EQ(titles["system_metrics_snapshot"], "Read system metrics");
  for (const char* name : {"system_echo_ping", "system_echo_invoke"}) {
    const auto ok = body_of(*by_kind.rpc(sid, t, "tools/call",
                                         R"({"name":")" + std::string(name) + R"(","arguments":{"node_id":")" +
                                             std::string(kNode) + R"(","arguments":{"message":"old or new"}}})"));
    EXPECT_EQ(json::get_string(ok["result"]["structuredContent"], "message").value_or(""), "old or new") << name;
  }
}

}  // namespace
}  // namespace fleetmcp::http::testing
