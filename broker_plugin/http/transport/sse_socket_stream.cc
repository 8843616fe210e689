// HttpConnection in stream mode: the EventStream of exchange.h over the connection's socket.
//
// Frames are written one at a time from a queue. Counted frames are limited by a FrameBacklog
// that compares what was written with what the client's TCP has acknowledged (SIOCOUTQ), which
// is RFC-0009 §6's "has not ACKed the oldest frame"; a monitor polls the same figure for the
// idle timeout (§7, 4408). A read stays posted to notice the client closing its side. finish()
// writes the last frame, then half-closes so the kernel still delivers what is queued, and cuts
// the connection if that takes longer than the close grace (a client that stopped reading).
#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/write.hpp>

#include <sstream>

#include "broker_plugin/http/transport/http_connection.h"

namespace fleetmcp::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

class SocketEventStream final : public EventStream {
 public:
  explicit SocketEventStream(std::shared_ptr<HttpConnection> connection) : connection_(std::move(connection)) {}
  void send(std::string text, bool counted) override { connection_->stream_send(std::move(text), counted); }
  void finish(std::string last) override { connection_->stream_finish(std::move(last)); }
  void on_end(std::function<void(StreamEnd)> handler) override { connection_->stream_on_end(std::move(handler)); }

 private:
  std::shared_ptr<HttpConnection> connection_;
};

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

constexpr std::chrono::milliseconds kMonitorMax{1000};

}  // namespace

std::shared_ptr<EventStream> HttpConnection::open_stream(std::vector<Header> headers, StreamLimits limits) {
  streaming_ = true;
  limits_ = limits;
  backlog_.emplace(limits.max_backlog_frames, FrameBacklog::Clock::now());
  if (settings_->on_status) settings_->on_status(200);
  frames_.push_back(Frame{response_head(std::move(headers)), false});
  write_next();
  watch_peer();
  arm_monitor();
  if (shutting_down_) asio::post(tcp().get_executor(), [self = shared_from_this()] { self->stream_end(StreamEnd::kShutdown); });
  return std::make_shared<SocketEventStream>(shared_from_this());
}

void HttpConnection::stream_on_end(std::function<void(StreamEnd)> handler) {
  if (!stream_ended_ && !finishing_) end_handler_ = std::move(handler);
}

uint64_t HttpConnection::unacked_bytes() {
  int pending = 0;
  if (::ioctl(tcp().native_handle(), SIOCOUTQ, &pending) != 0 || pending < 0) return 0;
  return static_cast<uint64_t>(pending);
}

void HttpConnection::stream_send(std::string text, bool counted) {
  if (closed_ || finishing_ || stream_ended_) return;
  if (counted) {
    backlog_->observe(unacked_bytes(), frames_.size(), FrameBacklog::Clock::now());
    if (!backlog_->admit()) return stream_end(StreamEnd::kOverflow);
  }
  frames_.push_back(Frame{std::move(text), counted});
  write_next();
}

void HttpConnection::write_next() {
  if (writing_ || closed_) return;
  if (frames_.empty()) {
    if (finishing_) close();
    return;
  }
  writing_ = true;
  with_stream([&](auto& stream) {
    asio::async_write(stream, asio::buffer(frames_.front().text), [self = shared_from_this()](beast::error_code ec, size_t bytes) {
      self->writing_ = false;
      if (ec) {
        self->frames_.clear();
        if (self->finishing_) return self->close();
        return self->stream_end(StreamEnd::kPeerClosed);
      }
      self->backlog_->written(bytes, self->frames_.front().counted);
      self->frames_.pop_front();
      self->write_next();
    });
  });
}

void HttpConnection::stream_finish(std::string last) {
  if (finishing_ || closed_) return;
  finishing_ = true;
  end_handler_ = nullptr;
  monitor_.reset();
  // Whatever is still queued is dropped; a frame being written stays (it cannot be recalled).
  while (frames_.size() > (writing_ ? 1u : 0u)) frames_.pop_back();
  if (!last.empty()) frames_.push_back(Frame{std::move(last), false});
  grace_ = scheduler_->after(settings_->close_grace, [weak = weak_from_this()] {
    if (const auto self = weak.lock()) self->close();
  });
  write_next();
}

void HttpConnection::stream_end(StreamEnd why) {
  if (stream_ended_ || finishing_ || closed_) return;
  stream_ended_ = true;
  // The handler may own the stream's session: keep it alive while it runs, then let it go.
  auto handler = std::move(end_handler_);
  end_handler_ = nullptr;
  if (handler) handler(why);
  if (!finishing_) stream_finish({});
}

void HttpConnection::watch_peer() {
  read_pending_ = true;
  with_stream([&](auto& stream) {
    stream.async_read_some(asio::buffer(peer_bytes_), [self = shared_from_this()](beast::error_code ec, size_t) {
      self->read_done();
      if (self->closed_) return;
      if (ec) return self->stream_end(StreamEnd::kPeerClosed);  // FIN or reset: the client is gone
      self->watch_peer();  // a client has nothing to say on a stream; ignore it
    });
  });
}

void HttpConnection::arm_monitor() {
  if (limits_.idle_timeout.count() <= 0) return;
  const auto every = std::min(kMonitorMax, std::max(std::chrono::milliseconds(10), limits_.idle_timeout / 4));
  monitor_ = scheduler_->after(every, [weak = weak_from_this()] {
    const auto self = weak.lock();
    if (!self || self->closed_ || self->finishing_ || self->stream_ended_) return;
    const auto now = FrameBacklog::Clock::now();
    self->backlog_->observe(self->unacked_bytes(), self->frames_.size(), now);
    if (self->backlog_->idle(now, self->limits_.idle_timeout)) return self->stream_end(StreamEnd::kIdle);
    self->arm_monitor();
  });
}

}  // namespace fleetmcp::http
