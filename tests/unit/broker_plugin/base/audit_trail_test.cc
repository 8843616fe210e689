// AuditTrail (broker_plugin/base/audit_trail.h) alone, over a real audit file and a clock the test
// sets: what an operator reads in the log when the plugin refuses things in bursts.
#include "broker_plugin/base/audit_trail.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/ids/ulid.h"

namespace fleetmcp::plugin {
namespace {

class AuditTrailTest : public ::testing::Test {
 protected:
  ~AuditTrailTest() override { std::filesystem::remove(path_); }

  std::string log() const { return try_read_file(path_).value_or(""); }
  size_t lines(std::string_view needle) const {
    const std::string text = log();
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
  }
  static AuditRecord refusal(std::string_view caller, std::string_view code = "E_ATTESTATION_FAILED",
                             std::string_view tenant = "acme") {
    return {.caller = caller, .tenant = tenant, .decision = "refuse", .code = code, .reason = "bad token"};
  }

  int64_t now = 1'763'800'000'000;
  PluginClock clock = [this] { return now; };
  std::string path_ = (std::filesystem::temp_directory_path() / ("audit-trail-" + new_node_id())).string();
  PluginCounters counters;
  AuditTrail audit{path_, /*refusal_interval_ms=*/1000, clock, counters};
};

TEST_F(AuditTrailTest, EveryDecisionThatIsNotARefusalIsWritten) {
  for (int i = 0; i < 3; ++i) audit({.caller = "claude", .tenant = "acme", .decision = "accept"});
  audit({.caller = "node", .tenant = "acme", .decision = "allow"});
  EXPECT_EQ(lines("\"decision\":\"accept\""), 3u);
  EXPECT_EQ(lines("\"decision\":\"allow\""), 1u);
  EXPECT_EQ(counters.audit_lines_throttled.load(), 0u);
}

TEST_F(AuditTrailTest, RefusalsOfOneKindGetALinePerIntervalThatSaysHowManyItStandsFor) {
  for (int i = 0; i < 3; ++i) audit(refusal("claude"));
  audit({.caller = "claude", .tenant = "acme", .decision = "drop", .code = "E_BAD_REQUEST"});  // its own kind
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 1u);
  EXPECT_EQ(lines("\"decision\":\"drop\""), 1u);
  EXPECT_EQ(counters.audit_lines_throttled.load(), 2u);  // every refusal still counted
  now += 999;
  audit(refusal("claude"));
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 1u);
  now += 1;
  audit(refusal("claude"));
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 2u);
  EXPECT_EQ(lines("\"reason\":\"bad token; 3 more like this since the previous line\""), 1u);
  EXPECT_EQ(counters.audit_lines_throttled.load(), 3u);
}

TEST_F(AuditTrailTest, KindsAreKeptApartByDecisionCodeTenantAndVerifiedCaller) {
  audit(refusal("claude"));
  audit(refusal("claude", "E_SAFETY_DENIED"));
  audit(refusal("claude", "E_ATTESTATION_FAILED", "beta"));
  audit(refusal("gemini"));
  audit({.caller = "claude", .tenant = "acme", .decision = "deny", .code = "E_ATTESTATION_FAILED"});
  EXPECT_EQ(lines("\"code\":\"E_"), 5u);
  EXPECT_EQ(counters.audit_lines_throttled.load(), 0u);
  // Names a refused client only claimed: made-up callers are one kind, so they add no lines.
  for (std::string_view made_up : {"made-up-1", "made-up-2", "made-up-3"}) {
    audit(refusal(made_up, "E_BAD_REQUEST"), /*caller_verified=*/false);
  }
  EXPECT_EQ(lines("\"code\":\"E_BAD_REQUEST\""), 1u);
  EXPECT_EQ(counters.audit_lines_throttled.load(), 2u);
}

// Issue 33 item 8: a burst shorter than the interval is written when the interval ends, as its
// last refusal at the time it happened, even when no refusal of its kind comes after it.
TEST_F(AuditTrailTest, TheTickWritesABurstsLastRefusalWhenItsIntervalEnds) {
  audit(refusal("made-up-0", "E_BAD_REQUEST"), false);
  const int64_t first = now;
  for (int i = 1; i <= 3; ++i) {
    now += 100;
    std::string caller = "made-up-" + std::to_string(i);  // gone before the tick: the trail keeps a copy
    audit(refusal(caller, "E_BAD_REQUEST"), false);
    caller.assign(caller.size(), 'x');
  }
  const int64_t last = now;
  audit.on_tick(first + 999);
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 1u);
  audit.on_tick(first + 1000);
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 2u);
  EXPECT_EQ(lines("{\"ts_ms\":" + std::to_string(last) + ",\"caller\":\"made-up-3\""), 1u) << log();
  EXPECT_EQ(lines("; 2 more like this since the previous line"), 1u);
  audit.on_tick(first + 10'000);
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 2u);  // written once
  EXPECT_EQ(counters.audit_lines_throttled.load(), 3u);
}

TEST(AuditTrail, AnIntervalOfZeroWritesEveryRefusal) {
  const std::string path = (std::filesystem::temp_directory_path() / ("audit-trail-" + new_node_id())).string();
  PluginCounters counters;
  const PluginClock clock = [] { return int64_t{1'763'800'000'000}; };
  {
    AuditTrail audit(path, 0, clock, counters);
    for (int i = 0; i < 3; ++i) audit({.caller = "x", .decision = "deny", .code = "E_SAFETY_DENIED"});
  }
  const std::string text = try_read_file(path).value_or("");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_EQ(counters.audit_lines_throttled.load(), 0u);
  std::filesystem::remove(path);
}

TEST(AuditTrail, ALogThatCannotBeOpenedStopsStartUp) {
  PluginCounters counters;
  const PluginClock clock = [] { return int64_t{0}; };
  EXPECT_THROW(AuditTrail("/nonexistent-fleetmcp-dir/audit.log", 1000, clock, counters), Error);
  AuditTrail none("", 1000, clock, counters);  // "": no log, and nothing fails
  none({.decision = "refuse"});
  none.on_tick(5000);
}

}  // namespace
}  // namespace fleetmcp::plugin
