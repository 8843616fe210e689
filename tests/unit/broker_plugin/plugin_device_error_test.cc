// What the plugin tells a caller when a device answers with an error (broker_plugin/calls/device_error.h):
// the device's code and retry_after_ms, never its text (docs/protocol.md §4.4, §9).
#include "broker_plugin/calls/device_error.h"

#include <gtest/gtest.h>

#include <string>

namespace fleetmcp::plugin {
namespace {

class DeviceError : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { schemas_ = SchemaRegistry::load(SchemaRegistry::default_dir()); }
  static inline std::shared_ptr<const SchemaRegistry> schemas_;

  ErrorEnvelope told_for(std::string_view error_json) {
    const std::string ack =
        R"({"type":"cmd_ack","msg_id":"01HZX9K3M4P7Q8R9S0T1V2W3XY","in_reply_to":"01HZX9K3M4P7Q8R9S0T1V2W3X0",)"
        R"("payload":{"ok":false,"error":)" + std::string(error_json) + "}}";
    const auto parsed = parse_cmd_ack(ack, *schemas_, arena_);
    EXPECT_TRUE(parsed) << ack;
    return parsed ? templated_device_error(*parsed) : ErrorEnvelope(ErrorCode::kInternal, "unparsed", "");
  }
  json::ParseArena arena_;
};

TEST_F(DeviceError, KeepsTheCodeAndRetryAfterButNotTheDevicesText) {
  const ErrorEnvelope told = told_for(
      R"({"code":"E_RATE_LIMITED","message":"device text","suggested_fix":"device fix","retry_after_ms":1500})");
  EXPECT_EQ(told.code, ErrorCode::kRateLimited);
  EXPECT_EQ(told.retry_after_ms, 1500);
  EXPECT_EQ(told.message, "the device refused the call with E_RATE_LIMITED");
  EXPECT_EQ(told.suggested_fix, "retry after retry_after_ms");
  const std::string json = told.to_json();
  EXPECT_EQ(json.find("device text"), std::string::npos) << "server-templated";
  EXPECT_EQ(json.find("device fix"), std::string::npos) << "server-templated";
}

TEST_F(DeviceError, ACmdTheDeviceDidNotRunIsSaidSo) {
  const ErrorEnvelope told =
      told_for(R"({"code":"E_DEADLINE_EXCEEDED","message":"not run: the cmd arrived at least 5 ms late","suggested_fix":"x"})");
  EXPECT_EQ(told.code, ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(told.message, "the device received the command after its deadline and did not run it");
  EXPECT_EQ(told.suggested_fix, "nothing was changed; retry the call if it is still wanted");
}

TEST_F(DeviceError, ADeadlineTheHandlerMissedIsNotANotRun) {
  const ErrorEnvelope told = told_for(R"({"code":"E_DEADLINE_EXCEEDED","message":"handler timed out","suggested_fix":"f"})");
  EXPECT_EQ(told.code, ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(told.message, "the device refused the call with E_DEADLINE_EXCEEDED");
  EXPECT_EQ(told.suggested_fix, "check the arguments and the node's state, then retry");
}

}  // namespace
}  // namespace fleetmcp::plugin
