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
  EXPECT_EQ(*json::get_string(bad["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_MANIFEST_INVALID");
  // The missing argument is named where the client wrote the arguments.
  EXPECT_NE(std::string(*json::get_string(bad["result"]["_meta"]["io.fleetmcp/error"], "message")).find("at /arguments:"),
            std::string::npos);
  // The projected name still works in compact mode.
  EXPECT_FALSE(body_of(*compact.rpc(sid, t, "tools/call", echo_call(echo_tool())))["result"]["isError"].GetBool());
}

}  // namespace
}  // namespace fleetmcp::http::testing
