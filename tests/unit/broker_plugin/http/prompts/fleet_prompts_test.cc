// The fleet prompts (fleet_prompts.h) as an MCP client gets them: listed, and each naming the
// tools the configured mode serves, in the workflow's order, for the caller's tenant only.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

constexpr std::string_view kPin = "01hzx9k3m4p7q8r9s0t1v2w3xb";

// The `backticked` tool names of the prompt's text, in order.
std::vector<std::string> named(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = text.find('`'); at != std::string::npos; at = text.find('`', at + 1)) {
    const size_t end = text.find('`', at + 1);
    out.push_back(text.substr(at + 1, end - at - 1));
    at = end;
  }
  return out;
}

std::string prompt_text(FrontFixture& f, const std::string& sid, const std::string& t, const std::string& params) {
  const auto body = body_of(*f.rpc(sid, t, "prompts/get", params));
  EXPECT_TRUE(body.HasMember("result")) << json::to_string(body);
  if (!body.HasMember("result")) return "";
  return body["result"]["messages"][0]["content"]["text"].GetString();
}

TEST_F(McpTest, InitializeAnnouncesPromptsAndCompletions) {
  const auto body = body_of(*f.rpc(f.open_session(tok), tok, "prompts/list", ""));
  ASSERT_TRUE(body.HasMember("result")) << json::to_string(body);
  std::vector<std::string> names;
  for (const auto& p : body["result"]["prompts"].GetArray()) names.emplace_back(p["name"].GetString());
  EXPECT_EQ(names, (std::vector<std::string>{"diagnose_node", "fleet_health_report", "safe_actuation"}));
  const auto init = body_of(*f.post_mcp(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})",
      "", tok));
  EXPECT_TRUE(init["result"]["capabilities"].HasMember("prompts")) << json::to_string(init);
  EXPECT_TRUE(init["result"]["capabilities"].HasMember("completions")) << json::to_string(init);
}

TEST_F(McpTest, SafeActuationReadsActsAndReadsBackWithTheServedNames) {
  for (const auto& [mode, read, set] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"by_kind", "gpio_pin_get", "gpio_pin_set"},
           {"per_node", "gpio." + std::string(kPin) + ".led.get", "gpio." + std::string(kPin) + ".led.set"},
           {"compact", "fleet_call", "fleet_call"}}) {
    FrontFixture m(FrontOptionList{{"http_tools_mode", mode}});
    m.fleet->add_node("acme", std::string(kPin), {{"led", "gpio.pin", {"get", "set"}, SafetyClass::kPhysicalActuation, {}}});
    m.scheduler->run();
    const std::string t = m.token();
    const std::string sid = m.open_session(t);
    const std::string text = prompt_text(
        m, sid, t, R"({"name":"safe_actuation","arguments":{"node_id":")" + std::string(kPin) + R"(","cap_id":"led","state":"on"}})");
    EXPECT_EQ(named(text), (std::vector<std::string>{read, set, read})) << mode << ": " << text;
    EXPECT_NE(text.find("yes"), std::string::npos) << text;  // the user confirms before acting
  }
}

TEST_F(McpTest, DiagnoseAndReportNameOnlyReadsAndRefuseOtherTenantsNodes) {
  const std::string sid = f.open_session(tok);
  const auto diagnose = named(prompt_text(f, sid, tok, R"({"name":"diagnose_node","arguments":{"node_id":")" + std::string(kNode) + R"("}})"));
  ASSERT_GE(diagnose.size(), 2u);
  EXPECT_EQ(diagnose.front(), "fleet_find_nodes");
  for (const std::string& name : diagnose) {  // reads only: the physical relay0's get, never its set or invoke
    EXPECT_FALSE(name.starts_with("relay.") && !name.ends_with(".get")) << name;
  }
  EXPECT_NE(std::find(diagnose.begin(), diagnose.end(), "relay." + std::string(kNode) + ".relay0.get"), diagnose.end());
  const auto report = named(prompt_text(f, sid, tok, R"({"name":"fleet_health_report","arguments":{"kind":"system.metrics"}})"));
  EXPECT_EQ(report, (std::vector<std::string>{"fleet_find_nodes", "fleet_read", "sys." + std::string(kNode) + ".metrics.snapshot"}));
  const auto other = body_of(*f.rpc(sid, tok, "prompts/get", R"({"name":"diagnose_node","arguments":{"node_id":")" + std::string(kOther) + R"("}})"));
  EXPECT_EQ(other["error"]["code"].GetInt(), rpc::kInvalidParams) << json::to_string(other);
  const auto unknown = body_of(*f.rpc(sid, tok, "prompts/get", R"({"name":"reboot_everything"})"));
  EXPECT_NE(std::string(unknown["error"]["message"].GetString()).find("diagnose_node"), std::string::npos);
}

}  // namespace
}  // namespace fleetmcp::http::testing
