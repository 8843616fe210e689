// PluginClock (docs/protocol.md §4.3 step 5): the earliest the plugin's clock can read, learnt from
// plugin timestamps and when they arrived, with every time passed in. The node's monotonic clock
// here starts at an arbitrary 5,000,000 ms; the plugin's clock is a Unix time, and the two differ by
// an offset the node never learns exactly.
#include <gtest/gtest.h>

#include "device_client/commands/plugin_clock.h"

namespace fleetmcp::device {
namespace {

constexpr int64_t kPlugin0 = 1'763'800'000'000;  // the plugin's clock at node monotonic kMono0
constexpr int64_t kMono0 = 5'000'000;
// A node wall clock that agrees with the plugin's: the 60 s fallback never decides below.
constexpr int64_t wall(int64_t mono) { return kPlugin0 + (mono - kMono0); }

TEST(PluginClock, WithoutASampleOnlyTheWallClockWithItsAllowanceCounts) {
  const PluginClock clock;
  EXPECT_EQ(clock.earliest_now(kMono0, kPlugin0), kPlugin0 - 60'000);
  // A node clock 30 s ahead of the plugin's (the broker accepts up to 60 s) still never puts the
  // plugin's clock later than it is.
  EXPECT_LE(clock.earliest_now(kMono0, kPlugin0 + 30'000), kPlugin0);
}

TEST(PluginClock, ASampleBoundsThePluginClockFromBelowByItsLatency) {
  PluginClock clock;
  clock.observe(kPlugin0, kMono0 + 40);  // sent at kPlugin0, arrived 40 ms later
  // 10 s later on the node the plugin's clock reads kPlugin0 + 10,000: the bound is at most the
  // sample's latency (40 ms) and the drift allowance (10 ms) below that.
  const int64_t earliest = clock.earliest_now(kMono0 + 10'000, wall(kMono0 + 10'000));
  EXPECT_LE(earliest, kPlugin0 + 10'000);
  EXPECT_GE(earliest, kPlugin0 + 10'000 - 40 - 10);
}

TEST(PluginClock, TheFastestSampleWins) {
  PluginClock clock;
  clock.observe(kPlugin0, kMono0 + 900);        // a slow delivery
  clock.observe(kPlugin0 + 1'000, kMono0 + 1'005);  // a fast one: 5 ms
  clock.observe(kPlugin0 + 2'000, kMono0 + 2'700);  // slow again: does not loosen the bound
  EXPECT_EQ(clock.earliest_now(kMono0 + 3'000, wall(kMono0 + 3'000)), kPlugin0 + 3'000 - 5 - 2);
}

// The issue 24 case: a cmd sent while the node was stopped, read 10 s later, is seen to be late
// by the sample of a cmd (or status) that arrived before the stop.
TEST(PluginClock, ACmdReadAfterAStopIsSeenToBeLate) {
  PluginClock clock;
  clock.observe(kPlugin0, kMono0 + 3);             // an earlier cmd, 3 ms on the way
  const int64_t sent = kPlugin0 + 60'000;          // a cmd sent a minute later, deadline 2 s …
  const int64_t read_at = kMono0 + 60'000 + 10'000;  // … read after a 10 s SIGSTOP
  clock.observe(sent, read_at);                    // its own sample cannot excuse it
  const int64_t left = sent + 2'000 - clock.earliest_now(read_at, wall(read_at));
  // Late by the stop less the deadline, the earlier sample's latency (3 ms) and the drift allowance
  // for its age (70 ms for 70 s).
  EXPECT_EQ(left, -(10'000 - 2'000 - 3 - 70));
}

TEST(PluginClock, ATimelyCmdIsNeverSeenToBeLate) {
  PluginClock clock;
  clock.observe(kPlugin0, kMono0 + 3);
  for (int64_t latency : {0, 1, 500, 1'999}) {
    const int64_t sent = kPlugin0 + 20'000;
    const int64_t read_at = kMono0 + 20'000 + latency;
    PluginClock c = clock;
    c.observe(sent, read_at);
    EXPECT_GT(sent + 2'000 - c.earliest_now(read_at, wall(read_at)), 0) << "latency " << latency;
  }
}

// Steps of the node's wall clock do not matter once a sample exists: the bound is on the
// monotonic clock. A node wall clock an hour behind (a Pi before NTP, D25) changes nothing.
TEST(PluginClock, TheNodesWallClockDoesNotMoveTheBound) {
  PluginClock clock;
  clock.observe(kPlugin0, kMono0);
  EXPECT_EQ(clock.earliest_now(kMono0 + 1'000, wall(kMono0 + 1'000) - 3'600'000), kPlugin0 + 1'000 - 1);
}

// The two clocks may drift apart; an old sample's bound loosens by 1 ms per second of its age and
// is forgotten after an hour, which also ends what a step back of the plugin's clock can do.
TEST(PluginClock, AnOldSampleLoosensThenExpires) {
  PluginClock clock;
  clock.observe(kPlugin0, kMono0);
  const int64_t half_hour = kMono0 + 1'800'000;
  EXPECT_EQ(clock.earliest_now(half_hour, 0), kPlugin0 + 1'800'000 - 1'800);
  const int64_t later = kMono0 + PluginClock::kMaxSampleAgeMs + 1;
  EXPECT_EQ(clock.earliest_now(later, wall(later)), wall(later) - 60'000) << "only the wall clock is left";
  clock.observe(kPlugin0 + PluginClock::kMaxSampleAgeMs, later + 7);  // an expired bound is replaced
  EXPECT_EQ(clock.earliest_now(later + 7, 0), kPlugin0 + PluginClock::kMaxSampleAgeMs);
}

TEST(PluginClock, AStepBackOfThePluginClockIsForgottenWithTheSample) {
  PluginClock clock;
  clock.observe(kPlugin0, kMono0);
  // The broker's clock is stepped back 30 s: its cmds now look 30 s old …
  clock.observe(kPlugin0 + 1'000 - 30'000, kMono0 + 1'000);
  EXPECT_GT(clock.earliest_now(kMono0 + 1'000, 0), kPlugin0 + 1'000 - 30'000 + 2'000);
  // … until a reset (a new session) or the sample's expiry.
  clock.reset();
  clock.observe(kPlugin0 + 2'000 - 30'000, kMono0 + 2'000);
  EXPECT_EQ(clock.earliest_now(kMono0 + 2'000, 0), kPlugin0 + 2'000 - 30'000);
}

}  // namespace
}  // namespace fleetmcp::device
