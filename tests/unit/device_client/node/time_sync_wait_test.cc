// When a node that waits for a synchronised clock connects, and when it says it waits.
#include <gtest/gtest.h>

#include "device_client/node/time_sync_wait.h"

namespace fleetmcp::device {
namespace {

using std::chrono::seconds;
using Step = TimeSyncWait::Step;

TEST(TimeSyncWait, ASynchronisedClockConnectsAtOnce) {
  TimeSyncWait wait(seconds(60));
  const auto t0 = TimeSyncWait::Clock::time_point();
  EXPECT_EQ(wait.look(true, t0), Step::kConnect);
  EXPECT_EQ(wait.waited(t0 + seconds(5)), seconds(0));
}

TEST(TimeSyncWait, SaysItWaitsAtFirstThenOncePerReminder) {
  TimeSyncWait wait(seconds(60));
  const auto t0 = TimeSyncWait::Clock::time_point();
  EXPECT_EQ(wait.look(false, t0), Step::kSayWaiting);
  EXPECT_EQ(wait.look(false, t0 + seconds(1)), Step::kKeepWaiting);
  EXPECT_EQ(wait.look(false, t0 + seconds(59)), Step::kKeepWaiting);
  EXPECT_EQ(wait.look(false, t0 + seconds(60)), Step::kSayWaiting);
  EXPECT_EQ(wait.look(false, t0 + seconds(61)), Step::kKeepWaiting);
}

TEST(TimeSyncWait, ConnectsOnTheFirstLookAfterNtpAnswers) {
  TimeSyncWait wait(seconds(60));
  const auto t0 = TimeSyncWait::Clock::time_point();
  wait.look(false, t0 + seconds(3));
  wait.look(false, t0 + seconds(4));
  EXPECT_EQ(wait.look(true, t0 + seconds(45)), Step::kConnect);
  EXPECT_EQ(wait.waited(t0 + seconds(45)), seconds(42));
}

}  // namespace
}  // namespace fleetmcp::device
