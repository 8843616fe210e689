// What the device can tell before anyone is asked (actuation_check.h, issue 37 item 3), through an
// MCP tools/call: a gpio.pin set on an input pin is refused after one read, before a commit token.
#include <gtest/gtest.h>

#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

constexpr std::string_view kPinNode = "01hzx9k3m4p7q8r9s0t1v2w3xc";

TEST_F(McpTest, AGpioSetOnAnInputPinIsRefusedBeforeAnyConfirmation) {
  const std::string node(kPinNode);
  f.fleet->add_node("acme", node, {{"gpio17", "gpio.pin", {"get", "set", "invoke"}, SafetyClass::kPhysicalActuation, {100, 4, 5000}}});
  const std::string sid = f.open_session(tok);
  const auto call = [&](std::string_view verb, const std::string& arguments) {
    return body_of(*f.rpc(sid, tok, "tools/call",
                          R"({"name":"gpio.)" + node + ".gpio17." + std::string(verb) + R"(","arguments":)" + arguments + "}"));
  };
  const auto refused = call("set", R"({"value":"high"})");
  const json::Value& e = refused["result"]["_meta"]["io.fleetmcp/error"];
  ASSERT_EQ(*json::get_string(e, "code"), "E_BAD_REQUEST");
  EXPECT_EQ(*json::get_string(e["details"], "reason"), "failed_precondition");
  EXPECT_TRUE(std::string(*json::get_string(e, "message")).starts_with("pin 17 (capability gpio17) is configured as an input"));
  EXPECT_NE(std::string(*json::get_string(e, "suggested_fix"))
                .find(R"(gpio_pin_set_mode {"node_id":")" + node + R"(","cap_id":"gpio17","arguments":{"mode":"output"}})"),
            std::string::npos);
  EXPECT_TRUE(commit_token_of(refused).empty());  // no token issued
  EXPECT_EQ(f.fleet->calls_received(), 1u);        // the read, nothing else

  // Configured as an output (confirmed), the set reaches its confirmation as before.
  const std::string ct = commit_token_of(call("invoke", R"({"mode":"output"})"));
  ASSERT_FALSE(ct.empty());
  call("invoke", R"({"mode":"output","commit_token":")" + ct + "\"}");
  EXPECT_EQ(f.fleet->calls_received(), 2u);
  f.advance(std::chrono::milliseconds(1000));
  const auto asked = call("set", R"({"value":"high"})");
  EXPECT_EQ(*json::get_string(asked["result"]["_meta"]["io.fleetmcp/error"], "code"), "E_SAFETY_DENIED");
  const std::string set_token = commit_token_of(asked);
  ASSERT_FALSE(set_token.empty());
  EXPECT_EQ(f.fleet->calls_received(), 3u);  // the read again
  EXPECT_FALSE(call("set", R"({"value":"high","commit_token":")" + set_token + "\"}")["result"]["isError"].GetBool());
  EXPECT_EQ(f.fleet->calls_received(), 4u);  // the confirmed set is not read first again
}

}  // namespace
}  // namespace fleetmcp::http::testing
