// CompactTools, the compact tool surface, through MCP.
#include <gtest/gtest.h>

#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

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
  EXPECT_EQ(*json::get_string(bad["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_INVALID_ARGUMENTS");
  // The missing argument is named where the client wrote the arguments.
  EXPECT_NE(std::string(*json::get_string(bad["result"]["_meta"]["io.fleetmcp/error"], "message")).find("at /arguments:"),
            std::string::npos);
  // The projected name still works in compact mode.
  EXPECT_FALSE(body_of(*compact.rpc(sid, t, "tools/call", echo_call(echo_tool())))["result"]["isError"].GetBool());
}

// fleet_find_nodes' kind is an enum of the kinds the caller's tenant has, in every mode that lists
// it, and a kind none of them is gets an error that lists them (issue 37 item 1): an empty list
// would read as "no node has it".
TEST_F(McpTest, FindNodesKindIsAnEnumOfTheTenantsKindsAndAnUnknownKindIsRefusedWithThem) {
  const auto kind_enum = [](FrontFixture& front, const std::string& t) {
    const std::string sid = front.open_session(t);
    std::vector<std::string> kinds;
    const auto listed = body_of(*front.rpc(sid, t, "tools/list", ""));  // outlives the loop over it
    for (const auto& tool : listed["result"]["tools"].GetArray()) {
      if (std::string_view(tool["name"].GetString()) != "fleet_find_nodes") continue;
      for (const auto& k : tool["inputSchema"]["properties"]["kind"]["enum"].GetArray()) kinds.emplace_back(k.GetString());
    }
    return kinds;
  };
  FrontFixture compact(FrontOptionList{{"http_tools_mode", "compact"}});
  const std::vector<std::string> acme{"system.echo", "system.metrics", "test.relay"};
  EXPECT_EQ(kind_enum(compact, compact.token()), acme);
  EXPECT_EQ(kind_enum(compact, compact.token("other")), std::vector<std::string>{"system.echo"});
  FrontFixture by_kind(FrontOptionList{{"http_tools_mode", "by_kind"}});
  const std::string t = by_kind.token();
  EXPECT_EQ(kind_enum(by_kind, t), acme);

  const std::string sid = by_kind.open_session(t);
  const auto refused = body_of(*by_kind.rpc(sid, t, "tools/call", R"({"name":"fleet_find_nodes","arguments":{"kind":"relay"}})"));
  ASSERT_TRUE(refused["result"]["isError"].GetBool());
  const json::Value& e = refused["result"]["_meta"]["io.fleetmcp/error"];
  EXPECT_EQ(*json::get_string(e, "code"), "E_INVALID_ARGUMENTS");
  const std::string message(*json::get_string(e, "message"));
  EXPECT_NE(message.find("at /kind"), std::string::npos) << message;
  for (const auto& k : acme) EXPECT_NE(message.find(k), std::string::npos) << message;
  EXPECT_NE(std::string(*json::get_string(e, "suggested_fix")).find("\"test.relay\" (the nearest)"), std::string::npos);
  // The other tenant's kinds are not the caller's: its node's kind alone is not listed as present.
  const std::string other = compact.token("other");
  const std::string other_sid = compact.open_session(other);
  const auto foreign = body_of(*compact.rpc(other_sid, other, "tools/call", R"({"name":"fleet_find_nodes","arguments":{"kind":"test.relay"}})"));
  ASSERT_TRUE(foreign["result"]["isError"].GetBool());
  EXPECT_EQ(std::string(*json::get_string(foreign["result"]["_meta"]["io.fleetmcp/error"], "message")).find("system.metrics"),
            std::string::npos);
  // A kind that is present still filters, and a state outside the enum is refused, not matched by no node.
  const auto found = body_of(*by_kind.rpc(sid, t, "tools/call", R"({"name":"fleet_find_nodes","arguments":{"kind":"system.echo"}})"));
  EXPECT_EQ(found["result"]["structuredContent"]["nodes"].Size(), 2u);
  EXPECT_TRUE(body_of(*by_kind.rpc(sid, t, "tools/call", R"({"name":"fleet_find_nodes","arguments":{"state":"up"}})"))["result"]["isError"].GetBool());
}

// fleet_find_nodes is the fleet overview (issue 37 item 8): each node's manifest expiry and its
// cap_ids by kind, filtered by cap_id and by how soon the manifest expires.
TEST_F(McpTest, FindNodesAnswersExpiryAndCapabilitiesAndFiltersByCapIdAndExpiry) {
  const std::string sid = f.open_session(tok);
  const auto find = [&](std::string_view arguments) {
    const auto body = body_of(*f.rpc(sid, tok, "tools/call", R"({"name":"fleet_find_nodes","arguments":)" + std::string(arguments) + "}"));
    EXPECT_FALSE(body["result"]["isError"].GetBool()) << json::to_string(body);
    std::vector<std::string> ids;
    for (const auto& n : body["result"]["structuredContent"]["nodes"].GetArray()) ids.emplace_back(n["node_id"].GetString());
    return std::make_pair(ids, json::to_string(body["result"]["structuredContent"]));
  };
  const auto [all, text] = find("{}");
  EXPECT_EQ(all, (std::vector<std::string>{std::string(kNode2), std::string(kNode)}));  // node_id order
  EXPECT_NE(text.find(R"("capabilities":{"system.echo":["echo"],"system.metrics":["metrics"],"test.relay":["relay0"]})"),
            std::string::npos) << text;
  EXPECT_NE(text.find("\"manifest_expires_at_ms\":"), std::string::npos) << text;
  EXPECT_EQ(find(R"({"cap_id":"relay0"})").first, std::vector<std::string>{std::string(kNode)});
  // The memory fleet's manifests expire an hour after they were made.
  EXPECT_TRUE(find(R"({"expiring_within_s":3000})").first.empty());
  EXPECT_EQ(find(R"({"expiring_within_s":7200})").first.size(), 2u);
  const auto bad = body_of(*f.rpc(sid, tok, "tools/call", R"({"name":"fleet_find_nodes","arguments":{"expiring_within_s":-1}})"));
  EXPECT_TRUE(bad["result"]["isError"].GetBool());
}

// The overview says which device each node is and what its capabilities are (issue 37 items 4, 8):
// the manifest's hostname, node labels and capability labels, and a filter by node label.
TEST_F(McpTest, FindNodesAnswersHostnameLabelsAndCapabilityLabelsAndFiltersByLabel) {
  f.fleet->add_node("acme", "01hzx9k3m4p7q8r9s0t1v2w3xd",
                    {{"gpio17", "gpio.pin", {"get"}, SafetyClass::kPhysicalActuation, {}, "BCM 17, output"},
                     {"button", "gpio.pin", {"get"}, SafetyClass::kPhysicalActuation, {}, "BCM 27, input"}});
  f.fleet->describe("01hzx9k3m4p7q8r9s0t1v2w3xd", "pi-door", {"site=lab", "door"});
  f.scheduler->run();
  const std::string sid = f.open_session(tok);
  const auto find = [&](std::string_view arguments) {
    const auto body = body_of(*f.rpc(sid, tok, "tools/call", R"({"name":"fleet_find_nodes","arguments":)" + std::string(arguments) + "}"));
    EXPECT_FALSE(body["result"]["isError"].GetBool()) << json::to_string(body);
    return json::to_string(body["result"]["structuredContent"]);
  };
  const std::string all = find("{}");
  EXPECT_NE(all.find(R"("node_id":"01hzx9k3m4p7q8r9s0t1v2w3xd","hostname":"pi-door","labels":["site=lab","door"])"),
            std::string::npos) << all;
  EXPECT_NE(all.find(R"("cap_labels":{"button":"BCM 27, input","gpio17":"BCM 17, output"})"), std::string::npos) << all;
  // A node whose manifest has none shows none: no empty fields.
  EXPECT_EQ(all.find(R"("node_id":")" + std::string(kNode) + R"(","hostname")"), std::string::npos) << all;
  EXPECT_EQ(find(R"({"label":"door"})"), find(R"({"kind":"gpio.pin"})"));
  EXPECT_NE(find(R"({"label":"door"})").find("pi-door"), std::string::npos);
  EXPECT_EQ(find(R"({"label":"site"})"), R"({"nodes":[]})");  // a label is matched whole
  const auto listed = body_of(*f.rpc(sid, tok, "tools/list", ""));
  for (const auto& tool : listed["result"]["tools"].GetArray()) {
    if (std::string_view(tool["name"].GetString()) != "fleet_find_nodes") continue;
    EXPECT_TRUE(tool["inputSchema"]["properties"].HasMember("label"));
    EXPECT_TRUE(tool["outputSchema"]["properties"]["nodes"]["items"]["properties"].HasMember("cap_labels"));
  }
}

// Compact mode's list holds the tenant's kinds now (fleet_find_nodes' enum): list_changed when they
// change, and not for a node with kinds already present or a node going offline.
TEST_F(McpTest, CompactListChangesWithTheTenantsKindsOnly) {
  FrontFixture compact(FrontOptionList{{"http_tools_mode", "compact"}});
  const std::string t = compact.token();
  const std::string sid = compact.open_session(t);
  const auto get = compact.send(HttpRequest{"GET", "/mcp", {{"Authorization", "Bearer " + t}, {"Mcp-Session-Id", sid}, {"Accept", "text/event-stream"}}, ""});
  ASSERT_TRUE(get->stream);
  compact.fleet->add_node("acme", "01hzx9k3m4p7q8r9s0t1v2w3xb", {{"echo", "system.echo", {"invoke"}, SafetyClass::kReadOnly, {}}});
  compact.fleet->set_online(std::string(kNode2), false);
  compact.scheduler->run();
  EXPECT_TRUE(sse_data(*get->stream).empty());
  compact.fleet->add_node("acme", "01hzx9k3m4p7q8r9s0t1v2w3xc", {{"led", "gpio.pin", {"get"}, SafetyClass::kReadOnly, {}}});
  compact.scheduler->run();
  const auto data = sse_data(*get->stream);
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(*json::get_string(data[0], "method"), "notifications/tools/list_changed");
}

}  // namespace
}  // namespace fleetmcp::http::testing
