// Stream mode of a connection (http_connection.h): the EventStream (exchange.h) an endpoint gets
// from open_stream(). The response head goes first, then Server-Sent Events frames until the
// stream finishes; then the connection closes.
//
// Frames are written one at a time from a queue. Counted frames are limited by a FrameBacklog
// that compares what was written with what the client's TCP has acknowledged (SIOCOUTQ), which is
// RFC-0009 §6's "has not ACKed the oldest frame"; a monitor polls the same figure for the idle
// timeout (§7, 4408). A read stays posted to notice the client closing its side. finish() writes
// the last frame, then closes (the connection half-closes, so the kernel still delivers what is
// queued), and the connection is cut if that takes longer than the close grace (a client that
// stopped reading).
//
// The stream works its connection's socket through StreamSocket. On the connection's io thread
// only (the scheduler is that thread's).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/transport/frame_backlog.h"

namespace fleetmcp::http {

// What the stream mode needs of its connection's socket (HttpConnection implements it).
class StreamSocket {
 public:
  virtual ~StreamSocket() = default;
  // Writes all of `bytes`, which stay valid until `done(ok, written)` runs.
  virtual void write(std::string_view bytes, std::function<void(bool ok, size_t written)> done) = 0;
  // Waits for the client to send something (done(true): ignored) or to close its side
  // (done(false)). `done` does not run once the connection is closed.
  virtual void read_some(std::function<void(bool ok)> done) = 0;
  // Bytes written that the client's TCP has not acknowledged yet.
  virtual uint64_t unacked_bytes() = 0;
  virtual bool closed() const = 0;
  virtual void close() = 0;
};

class SseStream final : public EventStream, public std::enable_shared_from_this<SseStream> {
 public:
  SseStream(std::shared_ptr<StreamSocket> socket, std::shared_ptr<Scheduler> scheduler, StreamLimits limits,
            std::chrono::milliseconds close_grace);

  // Writes the 200 text/event-stream head with `headers` added, and starts watching the client.
  void start(std::vector<Header> headers);
  // The stream ends other than through finish() (the client went, the server stops): the end
  // handler runs, then the stream finishes. Once.
  void end(StreamEnd why);
  // A frame is being written: the connection's close must not send anything else.
  bool writing() const { return writing_; }
  // The connection closed: the timers stop.
  void closed();

  // EventStream.
  void send(std::string text, bool counted) override;
  void finish(std::string last) override;
  void on_end(std::function<void(StreamEnd)> handler) override;

 private:
  // kOpen → kEnding (end(): its handler runs and may finish()) → kFinishing (the last frame, then
  // the close); finish() goes from kOpen to kFinishing directly.
  enum class State { kOpen, kEnding, kFinishing };
  struct Frame {
    std::string text;
    bool counted = false;
  };
  void write_next();
  void watch_peer();
  void arm_monitor();

  std::shared_ptr<StreamSocket> socket_;
  std::shared_ptr<Scheduler> scheduler_;
  StreamLimits limits_;
  std::chrono::milliseconds close_grace_;
  State state_ = State::kOpen;
  bool writing_ = false;  // the front frame is being written
  std::deque<Frame> frames_;
  FrameBacklog backlog_;
  std::function<void(StreamEnd)> end_handler_;
  std::unique_ptr<Timer> monitor_, grace_;
};

}  // namespace fleetmcp::http
