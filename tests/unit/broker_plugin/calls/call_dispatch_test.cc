// CallDispatch alone (broker_plugin/calls/call_dispatch.h): over an empty node registry, the real
// schemas and a recording broker, without a FleetPlugin around it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "broker_plugin/calls/call_dispatch.h"
#include "tests/support/plugin_fake_broker.h"

namespace fleetmcp::plugin {
namespace {

constexpr std::string_view kNode = "01jd0000000000000000000nod";

class CallDispatchTest : public ::testing::Test {
 protected:
  std::string audit_log() const {
    std::ifstream in(audit_path_);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ~CallDispatchTest() override { std::filesystem::remove(audit_path_); }

  int64_t now = 1'763'800'000'000;
  PluginClock clock = [this] { return now; };
  std::string audit_path_ = (std::filesystem::temp_directory_path() / ("call-dispatch-" + new_node_id())).string();
  PluginCounters counters;
  AuditTrail audit{audit_path_, /*refusal_interval_ms=*/0, clock, counters};
  testing::FakeBroker broker;
  NodeRegistry registry;
  std::shared_ptr<const SchemaRegistry> schemas = SchemaRegistry::load(std::string(FLEETMCP_SOURCE_DIR) + "/schemas");
  CallDispatch calls{registry, *schemas, broker, clock, audit, counters};
};

TEST_F(CallDispatchTest, ACallToANodeNobodyAnnouncedIsAnsweredOnTheTickWithoutACmd) {
  std::optional<CallResult> answer;
  QueuedCall call;
  call.request = {.caller = "ops",
                  .tenant = "acme",
                  .node_id = std::string(kNode),
                  .cap_id = "echo",
                  .verb = "invoke",
                  .tool = "sysecho." + std::string(kNode) + ".echo.invoke",
                  .arguments_json = "{}",
                  .origin = CallOrigin::kFront};
  call.done = [&](CallResult result) { answer = std::move(result); };
  calls.submit(std::move(call), /*wake=*/false);
  EXPECT_FALSE(answer);  // nothing happens before the tick
  calls.dispatch_submitted(now);
  ASSERT_TRUE(answer);
  ASSERT_FALSE(*answer);
  EXPECT_EQ(answer->error().code, ErrorCode::kManifestNotFound);
  EXPECT_TRUE(broker.published.empty());
  EXPECT_EQ(calls.pending(), 0u);
  EXPECT_EQ(counters.calls_failed.load(), 1u);
  EXPECT_EQ(audit_log(), "");  // the front writes its own line for its calls
}

TEST_F(CallDispatchTest, AcksThatAnswerNoCallAreDroppedCountedAndAuditedUnlessABridgeCarriedThem) {
  const std::string stray = R"({"type":"cmd_ack","msg_id":"01JD0000000000000000000DEV",)"
                            R"("in_reply_to":"01JD0000000000000000000SRV","payload":{"ok":true,"result":{}}})";
  calls.on_cmd_ack(kNode, "{}", /*over_bridge=*/false);
  calls.on_cmd_ack(kNode, stray, /*over_bridge=*/false);
  calls.on_cmd_ack(kNode, stray, /*over_bridge=*/true);  // another broker's call
  EXPECT_EQ(counters.acks_malformed.load(), 1u);
  EXPECT_EQ(counters.acks_unmatched.load(), 1u);
  const std::string log = audit_log();
  EXPECT_NE(log.find("does not match cmd_ack"), std::string::npos);
  EXPECT_EQ(log.find("answers no call"), log.rfind("answers no call"));  // one line, not two
}

TEST_F(CallDispatchTest, AnAckForACmdABridgeRelayedHereIsLeftToTheOtherBroker) {
  calls.note_relayed_cmd(R"({"type":"cmd","msg_id":"01JD0000000000000000000SRV"})");
  EXPECT_EQ(counters.relayed_cmds.load(), 1u);
  calls.on_cmd_ack(kNode,
                   R"({"type":"cmd_ack","msg_id":"01JD0000000000000000000DEV",)"
                   R"("in_reply_to":"01JD0000000000000000000SRV","payload":{"ok":true,"result":{}}})",
                   /*over_bridge=*/false);
  EXPECT_EQ(counters.acks_unmatched.load(), 0u);
  EXPECT_EQ(audit_log(), "");
}

}  // namespace
}  // namespace fleetmcp::plugin
