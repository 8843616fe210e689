// FrameBacklog: the RFC-0009 stream's backlog arithmetic.
#include <gtest/gtest.h>

#include "broker_plugin/http/transport/frame_backlog.h"

namespace fleetmcp::http {
namespace {

using std::chrono::milliseconds;

TEST(FrameBacklog, CountsFramesUntilTheClientAcknowledgesThem) {
  const auto t0 = FrameBacklog::Clock::now();
  FrameBacklog b(3, t0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(b.admit());
    b.written(100, true);
  }
  b.observe(300, 0, t0);  // nothing acknowledged
  EXPECT_EQ(b.behind(), 3u);
  EXPECT_FALSE(b.admit());  // a 4th would be more than 3 behind (RFC-0009 §6)
  b.observe(150, 0, t0);   // the first frame's last byte is acknowledged
  EXPECT_EQ(b.behind(), 2u);
  EXPECT_TRUE(b.admit());
  b.written(40, false);  // a ping does not count
  EXPECT_EQ(b.behind(), 3u);
}

TEST(FrameBacklog, IdleMeansNoAcknowledgementProgressWhileSomethingIsOutstanding) {
  const auto t0 = FrameBacklog::Clock::now();
  FrameBacklog b(3, t0);
  b.written(100, true);
  b.observe(100, 0, t0 + milliseconds(1000));
  EXPECT_FALSE(b.idle(t0 + milliseconds(89999), milliseconds(90000)));
  EXPECT_TRUE(b.idle(t0 + milliseconds(90000), milliseconds(90000)));
  b.observe(50, 0, t0 + milliseconds(95000));  // progress
  EXPECT_FALSE(b.idle(t0 + milliseconds(100000), milliseconds(90000)));
  b.observe(0, 0, t0 + milliseconds(200000));  // all caught up: never idle
  EXPECT_FALSE(b.idle(t0 + milliseconds(200000), milliseconds(90000)));
}

}  // namespace
}  // namespace fleetmcp::http
