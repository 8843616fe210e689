// SSE framing.
#include <gtest/gtest.h>

#include "broker_plugin/http/transport/sse_event.h"

namespace fleetmcp::http {
namespace {

TEST(SseEvent, FramesEventsAndSplitsLineBreaksIntoDataLines) {
  EXPECT_EQ(sse_event("metric", R"({"a":1})"), "event: metric\ndata: {\"a\":1}\n\n");
  EXPECT_EQ(sse_event("", "x\ny\r\nz\rw", "7"), "id: 7\ndata: x\ndata: y\ndata: z\ndata: w\n\n");
  EXPECT_EQ(sse_comment("keepalive"), ": keepalive\n\n");
}

}  // namespace
}  // namespace fleetmcp::http
