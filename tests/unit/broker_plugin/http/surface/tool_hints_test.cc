#include "broker_plugin/http/surface/tool_hints.h"

#include <gtest/gtest.h>

namespace fleetmcp::http {
namespace {

// Issue 37 item 6: destructiveHint false promises only additive updates (MCP), so a service stop,
// a disable and the self-update are destructive; only a new photo is additive.
TEST(ToolHints, OnlyAnAdditiveCallIsNotDestructive) {
  EXPECT_TRUE(tool_hints("service.unit", SafetyClass::kReversible, "invoke").destructive);
  EXPECT_TRUE(tool_hints("service.unit", SafetyClass::kReversible, "set").destructive);
  EXPECT_TRUE(tool_hints("manage.server", SafetyClass::kReversible, "invoke").destructive);
  EXPECT_TRUE(tool_hints("gpio.pin", SafetyClass::kPhysicalActuation, "set").destructive);
  EXPECT_FALSE(tool_hints("camera.still", SafetyClass::kReversible, "invoke").destructive);
  EXPECT_FALSE(tool_hints("camera.still", SafetyClass::kReversible, "invoke").read_only);
}

TEST(ToolHints, AReadOfAPhysicalCapabilityOnlyReads) {
  const ToolHints get = tool_hints("gpio.pin", SafetyClass::kPhysicalActuation, "get");
  EXPECT_TRUE(get.read_only);
  EXPECT_FALSE(get.destructive);
  EXPECT_FALSE(needs_commit_token(verb_safety_class("gpio.pin", SafetyClass::kPhysicalActuation, "get"), "get"));
}

TEST(ToolHints, TheSelfUpdateNeedsAConfirmation) {
  const SafetyClass update = call_safety_class("manage.server", SafetyClass::kReversible, "invoke", nullptr);
  EXPECT_EQ(update, SafetyClass::kPhysicalActuation);
  EXPECT_TRUE(needs_commit_token(update, "invoke"));
  EXPECT_EQ(required_scope(update, "invoke"), "tools:call:physical_actuation");
  // A service stop stays reversible unless it is forced.
  const auto plain = json::parse_strict(R"({"action":"stop"})", ErrorCode::kBadRequest).value();
  const auto forced = json::parse_strict(R"({"action":"stop","force":true})", ErrorCode::kBadRequest).value();
  EXPECT_EQ(call_safety_class("service.unit", SafetyClass::kReversible, "invoke", &plain), SafetyClass::kReversible);
  EXPECT_EQ(call_safety_class("service.unit", SafetyClass::kReversible, "invoke", &forced), SafetyClass::kPhysicalActuation);
}

}  // namespace
}  // namespace fleetmcp::http
