// When the event loop pings systemd's watchdog: half of WatchdogSec, only for this process.
#include <gtest/gtest.h>

#include "device_client/session/watchdog_pace.h"

namespace fleetmcp::device {
namespace {

using std::chrono::milliseconds;

TEST(WatchdogPace, HalfOfWatchdogSec) {
  EXPECT_EQ(watchdog_ping_period("30000000", std::nullopt, 42), milliseconds(15000));
  EXPECT_EQ(watchdog_ping_period("30000000", "42", 42), milliseconds(15000));
  EXPECT_EQ(watchdog_ping_period("1000", std::nullopt, 42), milliseconds(1));  // never zero
}

TEST(WatchdogPace, NoWatchdogWithoutAUsableWatchdogUsec) {
  EXPECT_EQ(watchdog_ping_period(std::nullopt, std::nullopt, 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_period("0", std::nullopt, 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_period("", std::nullopt, 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_period("30s", std::nullopt, 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_period("-5", std::nullopt, 42), std::nullopt);
}

TEST(WatchdogPace, AWatchdogMeantForAnotherProcessIsNotPinged) {
  EXPECT_EQ(watchdog_ping_period("30000000", "41", 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_period("30000000", "x", 42), std::nullopt);
}

}  // namespace
}  // namespace fleetmcp::device
