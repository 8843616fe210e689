// RefusalThrottle: one audit line per key and interval, counting the rest.
#include <gtest/gtest.h>

#include "common/base/refusal_throttle.h"

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

}  // namespace
}  // namespace fleetmcp
