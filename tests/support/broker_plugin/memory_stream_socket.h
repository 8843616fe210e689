// A StreamSocket (broker_plugin/http/server/sse_stream.h) in memory, for the stream mode's unit
// tests: a write completes when the test says so, the client closes when the test says so.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker_plugin/http/server/sse_stream.h"

namespace fleetmcp::http::testing {

class MemoryStreamSocket : public StreamSocket {
 public:
  void write(std::string_view bytes, std::function<void(bool ok, size_t written)> done) override {
    pending_.emplace_back(std::string(bytes), std::move(done));
  }
  void read_some(std::function<void(bool ok)> done) override { reader_ = std::move(done); }
  uint64_t unacked_bytes() override { return unacked; }
  bool closed() const override { return closed_; }
  void close() override { closed_ = true; }

  // The oldest write in flight, or "" when none is.
  std::string writing() const { return pending_.empty() ? std::string() : pending_.front().first; }
  // Completes the oldest write in flight: it reached the client (ok) or the connection broke.
  void complete(bool ok = true) {
    auto [bytes, done] = std::move(pending_.front());
    pending_.pop_front();
    if (ok) written.push_back(bytes);
    done(ok, ok ? bytes.size() : 0);
  }
  // The client closes its side: the stream's watch hears it (unless the connection closed).
  void peer_closes() {
    auto reader = std::exchange(reader_, nullptr);
    if (reader && !closed_) reader(false);
  }

  // Drops the writes and the watch in flight, as an io_context destroyed with handlers pending
  // does: their callbacks hold the stream, which holds this socket.
  void drop_in_flight() {
    pending_.clear();
    reader_ = nullptr;
  }

  std::vector<std::string> written;  // what reached the client, frame by frame
  uint64_t unacked = 0;              // what the client's TCP has not acknowledged

 private:
  std::deque<std::pair<std::string, std::function<void(bool, size_t)>>> pending_;
  std::function<void(bool)> reader_;
  bool closed_ = false;
};

}  // namespace fleetmcp::http::testing
