// One audit line per refusal kind and interval, counting the rest (issue 24 item 6); a burst
// shorter than the interval is handed back when the interval ends (issue 33 item 8). Manual clock.
#include "common/base/refusal_throttle.h"

#include <gtest/gtest.h>

namespace fleetmcp {
namespace {

TEST(RefusalThrottle, OneLinePerKeyAndIntervalCountingTheRest) {
  RefusalThrottle throttle(1000);
  EXPECT_EQ(throttle.admit("k", 0), 0u);
  EXPECT_FALSE(throttle.admit("k", 10));
  EXPECT_FALSE(throttle.admit("k", 999));
  EXPECT_EQ(throttle.admit("other", 999), 0u);
  EXPECT_EQ(throttle.admit("k", 1000), 2u);  // this line stands for the two not written
  EXPECT_EQ(throttle.admit("k", 2500), 0u);
  RefusalThrottle every(0);
  EXPECT_EQ(every.admit("k", 0), 0u);
  EXPECT_EQ(every.admit("k", 0), 0u);
}

TEST(RefusalThrottle, ABurstShorterThanTheIntervalIsHandedBackWhenItEnds) {
  RefusalThrottle<std::string> throttle(1000);
  EXPECT_EQ(throttle.admit("k", 0, "first"), 0u);
  EXPECT_FALSE(throttle.admit("k", 10, "second"));
  EXPECT_FALSE(throttle.admit("k", 20, "third"));
  EXPECT_EQ(throttle.admit("other", 30, "alone"), 0u);
  EXPECT_TRUE(throttle.ended(999).empty());  // not yet: the interval runs to 1000

  const auto due = throttle.ended(1000);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].count, 2u);         // the second and the third
  EXPECT_EQ(due[0].last, "third");     // the line to write, standing for the other one
  EXPECT_TRUE(throttle.ended(1001).empty());  // handed back once

  // Written at 1000, so the key's next interval runs to 2000.
  EXPECT_FALSE(throttle.admit("k", 1500, "fourth"));
  EXPECT_TRUE(throttle.ended(1999).empty());
  const auto next = throttle.ended(2000);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].count, 1u);
  EXPECT_EQ(next[0].last, "fourth");
  EXPECT_EQ(throttle.admit("k", 3000, "fifth"), 0u);  // a quiet interval later: written at once
}

TEST(RefusalThrottle, NothingIsHandedBackWhenEveryRefusalWasWritten) {
  RefusalThrottle<std::string> throttle(1000);
  EXPECT_EQ(throttle.admit("k", 0, "only"), 0u);
  EXPECT_TRUE(throttle.ended(5000).empty());
  RefusalThrottle<std::string> every(0);
  EXPECT_EQ(every.admit("k", 0, "a"), 0u);
  EXPECT_EQ(every.admit("k", 0, "b"), 0u);
  EXPECT_TRUE(every.ended(5000).empty());
}

}  // namespace
}  // namespace fleetmcp
