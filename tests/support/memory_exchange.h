// Exchanges and event streams in memory, for unit tests of the endpoints: a request goes in, the
// reply or the stream's frames come out, and the test plays the client (closing, falling behind).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker_plugin/http/transport/exchange.h"

namespace fleetmcp::http::testing {

class MemoryStream : public EventStream {
 public:
  struct Frame {
    std::string text;
    bool counted = false;
  };

  explicit MemoryStream(StreamLimits limits) : limits_(limits) {}

  void send(std::string text, bool counted) override;
  void finish(std::string last) override;
  void on_end(std::function<void(StreamEnd)> handler) override;

  // The client side.
  void acknowledge_all() { unacked_counted_ = 0; }  // it has read everything so far
  void end(StreamEnd why);                          // the connection ended this way

  std::vector<Frame> frames;      // everything written, in order
  std::vector<Header> headers;    // of the response head
  bool finished = false;
  std::string last;               // what finish() wrote last
  StreamLimits limits_;

 private:
  size_t unacked_counted_ = 0;
  std::function<void(StreamEnd)> handler_;
};

class MemoryExchange : public Exchange {
 public:
  MemoryExchange(HttpRequest request, std::shared_ptr<Scheduler> scheduler)
      : request_(std::move(request)), scheduler_(std::move(scheduler)) {}

  const HttpRequest& request() const override { return request_; }
  std::shared_ptr<Scheduler> scheduler() override { return scheduler_; }
  void respond(HttpReply reply) override;
  void abandon() override {
    ++answers;
    abandoned = true;
  }
  std::shared_ptr<EventStream> open_stream(std::vector<Header> headers, StreamLimits limits) override;
  void on_peer_closed(std::function<void()> handler) override { peer_closed = std::move(handler); }

  std::optional<HttpReply> reply;
  std::function<void()> peer_closed;  // what the endpoint asked to run when the client closes (the test runs it)
  std::shared_ptr<MemoryStream> stream;
  bool abandoned = false;
  int answers = 0;  // respond + open_stream + abandon calls: exactly one is right

 private:
  HttpRequest request_;
  std::shared_ptr<Scheduler> scheduler_;
};

}  // namespace fleetmcp::http::testing
