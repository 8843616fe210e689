// PluginCounters (broker_plugin/base/plugin_counters.h): what the $CONTROL driver's JSON and the
// front's /metrics (fleetmcp_mqtt_refusals_total) report.
#include "broker_plugin/base/plugin_counters.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/base/json.h"

namespace fleetmcp::plugin {
namespace {

TEST(PluginCounters, ARefusedAnnounceCountsInTheTotalAndUnderItsCode) {
  PluginCounters counters;
  counters.count_refusal(ErrorCode::kAttestationFailed);
  counters.count_refusal(ErrorCode::kAttestationFailed);
  counters.count_refusal(ErrorCode::kManifestInvalid);
  EXPECT_EQ(counters.announces_refused.load(), 3u);
  const std::string text = counters.to_json();
  // Codes in ErrorCode order, and only those that happened.
  EXPECT_NE(text.find(R"("announces_refused_by_code":{"E_MANIFEST_INVALID":1,"E_ATTESTATION_FAILED":2})"),
            std::string::npos)
      << text;
  const auto doc = json::parse_strict(text).value();
  EXPECT_EQ(doc["announces_refused"].GetUint64(), 3u);
}

TEST(PluginCounters, TheJsonNamesEveryDecisionCounter) {
  PluginCounters counters;
  bump(counters.auth_refused);
  bump(counters.calls_ok);
  bump(counters.calls_ok);
  bump(counters.audit_lines_throttled);
  bump(counters.ticks);
  const auto doc = json::parse_strict(counters.to_json()).value();
  ASSERT_TRUE(doc.IsObject());
  EXPECT_EQ(doc["auth_refused"].GetUint64(), 1u);
  EXPECT_EQ(doc["calls_ok"].GetUint64(), 2u);
  EXPECT_EQ(doc["audit_lines_throttled"].GetUint64(), 1u);
  EXPECT_EQ(doc["auth_accepted"].GetUint64(), 0u);
  EXPECT_EQ(doc["relayed_cmds"].GetUint64(), 0u);
  EXPECT_FALSE(doc.HasMember("ticks"));  // the waker's check, not a decision
  EXPECT_EQ(doc["announces_refused_by_code"].MemberCount(), 0u);
  EXPECT_EQ(doc.MemberCount(), 27u);  // 26 counters and the refusals by code
}

TEST(PluginCounters, MqttRefusalsSayWhatWasRefused) {
  PluginCounters counters;
  counters.auth_refused = 2;
  counters.acl_denied_write = 3;
  counters.acl_denied_subscribe = 4;
  counters.acl_denied_read = 5;
  counters.count_refusal(ErrorCode::kManifestInvalid);
  counters.acks_malformed = 6;
  counters.acks_unmatched = 7;
  counters.late_acks = 8;
  counters.bridged_dropped = 9;
  counters.calls_failed = 100;  // a failed call is not a refusal of MQTT traffic
  const std::vector<std::pair<std::string_view, uint64_t>> expected = {
      {"connect", 2},           {"publish", 3},           {"subscribe", 4},    {"read", 5},
      {"announce", 1},          {"cmd_ack_malformed", 6}, {"cmd_ack_unmatched", 7}, {"cmd_ack_late", 8},
      {"bridged_status", 9}};
  EXPECT_EQ(counters.mqtt_refusals(), expected);
}

}  // namespace
}  // namespace fleetmcp::plugin
