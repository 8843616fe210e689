#include "broker_plugin/http/server/sse_stream.h"

#include <algorithm>
#include <sstream>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/write.hpp>

namespace fleetmcp::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

constexpr std::chrono::milliseconds kMonitorMax{1000};

bool has_header(const std::vector<Header>& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (beast::iequals(key, beast::string_view(name.data(), name.size()))) return true;
  }
  return false;
}

std::string response_head(std::vector<Header> headers) {
  bhttp::response<bhttp::empty_body> res{bhttp::status::ok, 11};
  res.set(bhttp::field::server, "fleetmcp");
  if (!has_header(headers, "Content-Type")) res.set(bhttp::field::content_type, "text/event-stream");
  res.set(bhttp::field::cache_control, "no-cache, no-transform");
  res.set("X-Accel-Buffering", "no");  // no proxy buffering of a live stream
  // No length and no chunking: the body runs until the connection closes.
  res.set(bhttp::field::connection, "close");
  for (auto& [name, value] : headers) res.insert(name, value);
  std::ostringstream out;
  out << res.base();
  return out.str();
}

}  // namespace

SseStream::SseStream(std::shared_ptr<StreamSocket> socket, std::shared_ptr<Scheduler> scheduler, StreamLimits limits,
                     std::chrono::milliseconds close_grace)
    : socket_(std::move(socket)),
      scheduler_(std::move(scheduler)),
      limits_(limits),
      close_grace_(close_grace),
      backlog_(limits.max_backlog_frames, FrameBacklog::Clock::now()) {}

void SseStream::start(std::vector<Header> headers) {
  frames_.push_back(Frame{response_head(std::move(headers)), false});
  write_next();
  watch_peer();
  arm_monitor();
}

void SseStream::on_end(std::function<void(StreamEnd)> handler) {
  if (state_ == State::kOpen) end_handler_ = std::move(handler);
}

void SseStream::send(std::string text, bool counted) {
  if (socket_->closed() || state_ != State::kOpen) return;
  if (counted) {
    backlog_.observe(socket_->unacked_bytes(), frames_.size(), FrameBacklog::Clock::now());
    if (!backlog_.admit()) return end(StreamEnd::kOverflow);
  }
  frames_.push_back(Frame{std::move(text), counted});
  write_next();
}

void SseStream::write_next() {
  if (writing_ || socket_->closed()) return;
  if (frames_.empty()) {
    if (state_ == State::kFinishing) socket_->close();
    return;
  }
  writing_ = true;
  socket_->write(frames_.front().text, [self = shared_from_this()](bool ok, size_t bytes) {
    self->writing_ = false;
    if (!ok) {
      self->frames_.clear();
      if (self->state_ == State::kFinishing) return self->socket_->close();
      return self->end(StreamEnd::kPeerClosed);
    }
    self->backlog_.written(bytes, self->frames_.front().counted);
    self->frames_.pop_front();
    self->write_next();
  });
}

void SseStream::finish(std::string last) {
  if (state_ == State::kFinishing || socket_->closed()) return;
  state_ = State::kFinishing;
  end_handler_ = nullptr;
  monitor_.reset();
  // Whatever is still queued is dropped; a frame being written stays (it cannot be recalled).
  while (frames_.size() > (writing_ ? 1u : 0u)) frames_.pop_back();
  if (!last.empty()) frames_.push_back(Frame{std::move(last), false});
  grace_ = scheduler_->after(close_grace_, [weak = weak_from_this()] {
    if (const auto self = weak.lock()) self->socket_->close();
  });
  write_next();
}

void SseStream::end(StreamEnd why) {
  if (state_ != State::kOpen || socket_->closed()) return;
  state_ = State::kEnding;
  // The handler may own the stream's session: keep it alive while it runs, then let it go.
  auto handler = std::move(end_handler_);
  end_handler_ = nullptr;
  if (handler) handler(why);
  if (state_ != State::kFinishing) finish({});
}

void SseStream::closed() {
  monitor_.reset();
  grace_.reset();
}

void SseStream::watch_peer() {
  socket_->read_some([self = shared_from_this()](bool ok) {
    if (!ok) return self->end(StreamEnd::kPeerClosed);  // FIN or reset: the client is gone
    self->watch_peer();  // a client has nothing to say on a stream; ignore it
  });
}

void SseStream::arm_monitor() {
  if (limits_.idle_timeout.count() <= 0) return;
  const auto every = std::min(kMonitorMax, std::max(std::chrono::milliseconds(10), limits_.idle_timeout / 4));
  monitor_ = scheduler_->after(every, [weak = weak_from_this()] {
    const auto self = weak.lock();
    if (!self || self->socket_->closed() || self->state_ != State::kOpen) return;
    const auto now = FrameBacklog::Clock::now();
    self->backlog_.observe(self->socket_->unacked_bytes(), self->frames_.size(), now);
    if (self->backlog_.idle(now, self->limits_.idle_timeout)) return self->end(StreamEnd::kIdle);
    self->arm_monitor();
  });
}

}  // namespace fleetmcp::http
