// The stream mode of a connection (sse_stream.h) over an in-memory socket: frames one at a time
// in order after the head, finish() dropping what is queued, the backlog limit (RFC-0009 §6), the
// client closing, and the close grace, each ending the stream once.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "broker_plugin/http/server/sse_stream.h"
#include "tests/support/broker_plugin/memory_stream_socket.h"
#include "tests/support/manual_scheduler.h"

namespace fleetmcp::http::testing {
namespace {

using namespace std::chrono_literals;

struct StreamTest : ::testing::Test {
  ~StreamTest() override { socket->drop_in_flight(); }

  std::shared_ptr<SseStream> open(StreamLimits limits = {}) {
    auto stream = std::make_shared<SseStream>(socket, scheduler, limits, 2000ms);
    stream->on_end([this](StreamEnd why) { ends.push_back(why); });
    stream->start({{"Mcp-Session-Id", "s1"}});
    return stream;
  }

  std::shared_ptr<MemoryStreamSocket> socket = std::make_shared<MemoryStreamSocket>();
  std::shared_ptr<ManualScheduler> scheduler = std::make_shared<ManualScheduler>();
  std::vector<StreamEnd> ends;
};

TEST_F(StreamTest, TheHeadThenEachFrameIsWrittenOneAtATimeInOrder) {
  auto stream = open();
  const std::string head = socket->writing();
  EXPECT_TRUE(head.starts_with("HTTP/1.1 200 OK\r\n")) << head;
  EXPECT_NE(head.find("Content-Type: text/event-stream\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Connection: close\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Mcp-Session-Id: s1\r\n"), std::string::npos) << head;
  stream->send("data: 1\n\n", true);
  stream->send("data: 2\n\n", false);
  EXPECT_EQ(socket->writing(), head);  // one write at a time
  socket->complete();
  EXPECT_EQ(socket->writing(), "data: 1\n\n");
  socket->complete();
  socket->complete();
  EXPECT_EQ(socket->written, (std::vector<std::string>{head, "data: 1\n\n", "data: 2\n\n"}));
  EXPECT_FALSE(socket->closed());
  EXPECT_TRUE(ends.empty());
}

TEST_F(StreamTest, FinishDropsWhatIsQueuedKeepsTheFrameBeingWrittenThenCloses) {
  auto stream = open();
  stream->send("data: queued\n\n", false);
  stream->finish("data: last\n\n");
  stream->send("data: too late\n\n", false);
  socket->complete();  // the head, which was being written
  EXPECT_EQ(socket->writing(), "data: last\n\n");
  EXPECT_FALSE(socket->closed());
  socket->complete();
  EXPECT_TRUE(socket->closed());
  EXPECT_EQ(socket->written.size(), 2u);
  EXPECT_TRUE(ends.empty());  // finish() reports nothing
}

TEST_F(StreamTest, OneCountedFrameMoreThanTheBacklogAllowsEndsTheStreamAsOverflowOnce) {
  auto stream = open(StreamLimits{.max_backlog_frames = 2});
  stream->send("data: 1\n\n", true);
  stream->send("data: 2\n\n", true);
  EXPECT_TRUE(ends.empty());
  stream->send("data: 3\n\n", true);
  stream->send("data: 4\n\n", true);
  EXPECT_EQ(ends, std::vector<StreamEnd>{StreamEnd::kOverflow});
  socket->complete();  // the head; the queued frames were dropped
  EXPECT_TRUE(socket->closed());
}

TEST_F(StreamTest, TheClientClosingEndsTheStreamOnce) {
  auto stream = open();
  socket->complete();
  socket->peer_closes();
  EXPECT_EQ(ends, std::vector<StreamEnd>{StreamEnd::kPeerClosed});
  EXPECT_TRUE(socket->closed());  // nothing was left to write
  stream->end(StreamEnd::kShutdown);
  EXPECT_EQ(ends.size(), 1u);
}

TEST_F(StreamTest, AFinishTheClientDoesNotTakeIsCutAfterTheCloseGrace) {
  auto stream = open();
  stream->finish("data: last\n\n");  // the head is never taken
  scheduler->advance(1999ms);
  EXPECT_FALSE(socket->closed());
  scheduler->advance(1ms);
  EXPECT_TRUE(socket->closed());
}

}  // namespace
}  // namespace fleetmcp::http::testing
