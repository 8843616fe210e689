// CallLimiter: the per-capability token bucket and concurrency slots.
#include <gtest/gtest.h>

#include "broker_plugin/http/calls/call_limiter.h"

namespace fleetmcp::http {
namespace {

TEST(CallLimiter, TokenBucketRefillsAtTheRate) {
  CallLimiter limiter;
  const CapabilityConstraints c{10, 100, 2000};
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(limiter.admit("n/echo", c, 1000).admitted) << i;  // burst = 10
  const LimitDecision refused = limiter.admit("n/echo", c, 1000);
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
  EXPECT_TRUE(limiter.admit("k", c, 0, LimitClaim{.hold_slot = false}).admitted);  // a stream spends a token, holds no slot
  a.slot.reset();
  EXPECT_EQ(limiter.in_flight("k"), 1u);
  EXPECT_TRUE(limiter.admit("k", c, 0).admitted);
}

TEST(CallLimiter, ReadsOfAnActingCapabilityLeaveTheLastTokenAndSlotToActingCalls) {
  CallLimiter limiter;
  const CapabilityConstraints c{2, 2, 2000};
  const LimitClaim read{.hold_slot = true, .leaves_headroom = true};
  const LimitDecision first_read = limiter.admit("n/gpio17", c, 0, read);
  EXPECT_TRUE(first_read.admitted);  // 2 tokens -> 1
  const LimitDecision refused = limiter.admit("n/gpio17", c, 0, read);
  EXPECT_FALSE(refused.admitted);  // the last token is the acting calls'
  EXPECT_EQ(refused.retry_after_ms, 500);
  EXPECT_EQ(limiter.rate_retry_after_ms("n/gpio17", c, 0), 0);  // asked before a confirmation: a set would run
  LimitDecision set = limiter.admit("n/gpio17", c, 0);
  EXPECT_TRUE(set.admitted);  // and does
  EXPECT_EQ(limiter.rate_retry_after_ms("n/gpio17", c, 0), 500);  // the check spends nothing ...
  EXPECT_EQ(limiter.rate_retry_after_ms("n/gpio17", c, 0), 500);
  EXPECT_FALSE(limiter.admit("n/gpio17", c, 0).admitted);  // ... and the empty bucket refuses sets too

  // A second later the bucket is full again; the read still holds one of the two slots.
  set.slot.reset();
  EXPECT_EQ(limiter.in_flight("n/gpio17"), 1u);
  EXPECT_FALSE(limiter.admit("n/gpio17", c, 1000, read).admitted);  // the last slot is the acting calls'
  EXPECT_TRUE(limiter.admit("n/gpio17", c, 1000).admitted);

  // With one slot, or a burst of one call, there is nothing to leave: reads take it.
  const CapabilityConstraints one{1, 1, 2000};
  EXPECT_TRUE(limiter.admit("n/one", one, 0, read).admitted);
}

}  // namespace
}  // namespace fleetmcp::http
