// The reconnect backoff: full jitter under a doubling ceiling, spread over a fleet.
#include <gtest/gtest.h>

#include "device_client/session/reconnect_backoff.h"

namespace fleetmcp::device {
namespace {

TEST(ReconnectBackoff, FullJitterUnderADoublingCeiling) {
  ReconnectBackoff b(2000, 60000, 42);
  const int64_t ceilings[] = {2000, 4000, 8000, 16000, 32000, 60000, 60000};
  for (int64_t ceiling : ceilings) {
    EXPECT_EQ(b.ceiling_ms(), ceiling);
    const int64_t d = b.next_delay_ms();
    EXPECT_GE(d, 0);
    EXPECT_LE(d, ceiling);
  }
  b.reset();
  EXPECT_EQ(b.ceiling_ms(), 2000);
}

TEST(ReconnectBackoff, AThousandNodesSpreadOverTheFirstWindow) {
  // After a broker restart every node draws its first delay: they must not land in one second.
  std::vector<int> per_second(3, 0);
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    ReconnectBackoff b(2000, 60000, seed * 7919);
    ++per_second[static_cast<size_t>(b.next_delay_ms() / 1000)];
  }
  EXPECT_LT(per_second[0], 600);
  EXPECT_LT(per_second[1], 600);
}

}  // namespace
}  // namespace fleetmcp::device
