#include "tests/support/memory_exchange.h"

namespace fleetmcp::http::testing {

void MemoryStream::send(std::string text, bool counted) {
  if (finished) return;
  if (counted) {
    if (unacked_counted_ + 1 > limits_.max_backlog_frames) return end(StreamEnd::kOverflow);
    ++unacked_counted_;
  }
  frames.push_back(Frame{std::move(text), counted});
}

void MemoryStream::finish(std::string text) {
  if (finished) return;
  finished = true;
  handler_ = nullptr;
  last = text;
  if (!text.empty()) frames.push_back(Frame{std::move(text), false});
}

void MemoryStream::on_end(std::function<void(StreamEnd)> handler) {
  if (!finished) handler_ = std::move(handler);
}

void MemoryStream::end(StreamEnd why) {
  if (finished) return;
  auto handler = std::move(handler_);
  handler_ = nullptr;
  if (handler) handler(why);
  if (!finished) finish({});
}

void MemoryExchange::respond(HttpReply r) {
  ++answers;
  reply = std::move(r);
}

std::shared_ptr<EventStream> MemoryExchange::open_stream(std::vector<Header> headers, StreamLimits limits) {
  ++answers;
  stream = std::make_shared<MemoryStream>(limits);
  stream->headers = std::move(headers);
  return stream;
}

}  // namespace fleetmcp::http::testing
