// CallLimiter: the per-capability token bucket and concurrency slots.
#include <gtest/gtest.h>

#include "broker_plugin/http/calls/call_limiter.h"

namespace fleetmcp::http {
namespace {

TEST(CallLimiter, TokenBucketRefillsAtTheRate) {
  CallLimiter limiter;
  const CapabilityConstraints c{10, 100, 2000};
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(limiter.admit("n/echo", c, 1000).admitted) << i;  // burst = 10
  const Admission refused = limiter.admit("n/echo", c, 1000);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.retry_after_ms, 100);
  EXPECT_FALSE(limiter.admit("n/echo", c, 1050).admitted);
  EXPECT_TRUE(limiter.admit("n/echo", c, 1100).admitted);
  EXPECT_TRUE(limiter.admit("n/other", c, 1100).admitted);  // per capability
}

TEST(CallLimiter, ConcurrencySlotsAreHeldUntilReleased) {
  CallLimiter limiter;
  const CapabilityConstraints c{100, 2, 2000};
  auto a = limiter.admit("k", c, 0);
  auto b = limiter.admit("k", c, 0);
  EXPECT_TRUE(a.admitted && b.admitted);
  const auto refused = limiter.admit("k", c, 0);
  EXPECT_FALSE(refused.admitted);
  EXPECT_GT(refused.retry_after_ms, 0);
  EXPECT_TRUE(limiter.admit("k", c, 0, false).admitted);  // a stream spends a token, holds no slot
  a.slot.reset();
  EXPECT_EQ(limiter.in_flight("k"), 1u);
  EXPECT_TRUE(limiter.admit("k", c, 0).admitted);
}

}  // namespace
}  // namespace fleetmcp::http
