#include "common/protocol/deadlines.h"

#include <gtest/gtest.h>

namespace fleetmcp {
namespace {

TEST(GatewayDeadline, IsTheLargerOfFiveSecondsAndTheCapabilityDeadlinePlusOne) {
  EXPECT_EQ(gateway_deadline_ms(2000), 5000);
  EXPECT_EQ(gateway_deadline_ms(4000), 5000);
  EXPECT_EQ(gateway_deadline_ms(4500), 5500);
  EXPECT_EQ(gateway_deadline_ms(30000), 31000);
  static_assert(gateway_deadline_ms(50) == 5000, "usable where a constant is needed");
}

}  // namespace
}  // namespace fleetmcp
