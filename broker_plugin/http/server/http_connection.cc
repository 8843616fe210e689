#include "broker_plugin/http/server/http_connection.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <algorithm>

#include <boost/asio/buffer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>

#include "broker_plugin/http/transport/error_status.h"

namespace fleetmcp::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

constexpr size_t kKeptResponseBytes = 16 * 1024;
// Room for a whole typical request (headers with a ~400-byte bearer token, a small JSON body) so
// that it is read with one recv and its header parsed once. Beast reads at most the buffer's free
// capacity (at least 512 bytes): with the default buffer, a ~650-byte tools/call took two reads
// (538 and 116 bytes) and two parses of the header. Costs 4 KiB per connection from its start,
// idle ones included: 2 MiB at the default plugin_opt_http_max_connections of 512, 40 MiB at
// 10,000. A larger request still grows the buffer as before.
constexpr size_t kReadBufferBytes = 4 * 1024;
constexpr size_t kPeerWatchBytes = 512;  // what a streaming client sends is read and ignored

// The Exchange an endpoint sees. Its calls arrive on the connection's io thread.
class ConnectionExchange final : public Exchange {
 public:
  ConnectionExchange(std::shared_ptr<HttpConnection> connection, HttpRequest request, bool keep_alive)
      : connection_(std::move(connection)), request_(std::move(request)), keep_alive_(keep_alive) {}

  ~ConnectionExchange() override {
    // An endpoint that drops an exchange without answering must not leave the client hanging.
    // Posted, never run inline: the last reference may go anywhere on this io thread (another
    // connection's handler, the background's sweep of a container, with locks held), and
    // respond() must not run in the middle of that. Through the scheduler, which drops it once
    // the front has shut down (the exchange of a call still in the fleet dies after that).
    if (!answered_) {
      connection_->scheduler()->post([c = connection_] {
        c->respond(envelope_reply(ErrorEnvelope(ErrorCode::kInternal, "the request was dropped without an answer",
                                                "retry; report this to the operator if it repeats")),
                   false);
      });
    }
  }

  const HttpRequest& request() const override { return request_; }
  std::shared_ptr<Scheduler> scheduler() override { return connection_->scheduler(); }

  void respond(HttpReply reply) override {
    if (std::exchange(answered_, true)) return;
    connection_->respond(std::move(reply), keep_alive_);
  }
  void abandon() override {
    if (std::exchange(answered_, true)) return;
    connection_->abandon();
  }
  std::shared_ptr<EventStream> open_stream(std::vector<Header> headers, StreamLimits limits) override {
    answered_ = true;
    return connection_->open_stream(std::move(headers), limits);
  }
  void on_peer_closed(std::function<void()> handler) override {
    if (!answered_) connection_->watch_peer(std::move(handler));
  }

 private:
  std::shared_ptr<HttpConnection> connection_;
  HttpRequest request_;
  bool keep_alive_;
  bool answered_ = false;
};

// A whole response in one buffer for one write. Beast's serializer walked a sequence of a dozen
// buffer pieces through several composed operations per response (~15 k instructions per
// tools/call answer: bench/profile.sh calls --callgrind); this writes the same bytes: status
// line, Server, the reply's headers in order, Connection: close unless kept alive, and
// Content-Length where a body is allowed (not 1xx, 204, 304).
void write_response_text(const HttpReply& reply, bool keep_alive, std::string& out) {
  const beast::string_view reason = bhttp::obsolete_reason(bhttp::int_to_status(static_cast<unsigned>(reply.status)));
  const bool body_allowed = reply.status >= 200 && reply.status != 204 && reply.status != 304;
  out.clear();
  out.reserve(128 + reply.body.size() + 64 * reply.headers.size());
  out.append("HTTP/1.1 ").append(std::to_string(reply.status)).append(" ").append(reason.data(), reason.size());
  out.append("\r\nServer: fleetmcp\r\n");
  for (const auto& [name, value] : reply.headers) out.append(name).append(": ").append(value).append("\r\n");
  if (!keep_alive) out.append("Connection: close\r\n");
  if (body_allowed) out.append("Content-Length: ").append(std::to_string(reply.body.size())).append("\r\n");
  out.append("\r\n");
  if (body_allowed) out.append(reply.body);
}

// A request still waiting for its answer (a tool call in flight) when the server stops: the
// answer can no longer come (in the plugin, the broker thread that would deliver the device's
// cmd_ack is the one stopping us), so the client is told now rather than cut off without a reply.
HttpReply shutdown_reply() {
  return envelope_reply(ErrorEnvelope(
      ErrorCode::kNodeOffline, "the broker is shutting down; the outcome of this call is unknown",
      "retry once the broker is back; the device may have run the call, so check before repeating an action"));
}

// Plain TCP, or TLS over it when the front has a TLS context (handshake in start()).
HttpConnection::Transport transport(HttpConnection::Socket socket, const ConnectionSettings& settings) {
  using Transport = HttpConnection::Transport;
  if (!settings.tls) return Transport(std::in_place_index<0>, std::move(socket));
  return Transport(std::in_place_index<1>, std::move(socket), *settings.tls);
}

}  // namespace

HttpConnection::HttpConnection(Socket socket, std::shared_ptr<asio::io_context> io,
                               std::shared_ptr<const ConnectionSettings> settings)
    : stream_(transport(std::move(socket), *settings)),
      deadline_timer_(tcp().get_executor()),
      io_(std::move(io)),
      settings_(std::move(settings)),
      head_(*settings_) {
  buffer_.reserve(kReadBufferBytes);
  scheduler_ = std::make_shared<AsioScheduler>(io_);  // the socket's executor is io_'s (http_server.cc)
}

HttpConnection::Socket& HttpConnection::tcp() {
  return std::visit([](auto& s) -> Socket& { return beast::get_lowest_layer(s); }, stream_);
}

HttpConnection::Executor HttpConnection::executor() { return tcp().get_executor(); }

void HttpConnection::hold(std::unique_ptr<ConnectionLimit::Ticket> ticket) {
  ticket_ = std::move(ticket);
  if (!ticket_) return;
  ticket_->on_evict([weak = weak_from_this()] {  // from the acceptor's thread
    if (const auto self = weak.lock()) asio::post(self->executor(), [self] { self->evicted(); });
  });
}

// From the acceptor's handler (http_server.cc), on another io thread or this one: inline when it
// is this one, which is safe as the acceptor calls it last, holding nothing.
void HttpConnection::start() {
  asio::dispatch(tcp().get_executor(), [self = shared_from_this()] {
    // respond()'s write_some must return would_block rather than wait for room (asio's own
    // non-blocking mode only covers its asynchronous operations).
    beast::error_code ignored;
    self->tcp().non_blocking(true, ignored);
    // The TLS handshake and the first request head within the header timeout of the start: a
    // client that opens connections and sends nothing, or trickles, holds each only that long.
    self->expire_at(self->head_.connection_started(Clock::now()));
    if (std::holds_alternative<TlsStream>(self->stream_)) return self->handshake();
    self->read_request();
  });
}

void HttpConnection::handshake() {
  std::get<TlsStream>(stream_).async_handshake(asio::ssl::stream_base::server,
                                               [self = shared_from_this()](beast::error_code ec) {
                                                 if (ec) return self->close();  // not TLS, or no common ground
                                                 self->tls_ = Tls::kReady;
                                                 self->read_request();
                                               });
}

void HttpConnection::shutdown() {
  asio::post(tcp().get_executor(), [self = shared_from_this()] {
    self->ending_ = Ending::kShuttingDown;
    switch (self->phase_) {
      case Phase::kReading: return self->close();
      case Phase::kHandling: return self->respond(shutdown_reply(), false);
      case Phase::kStreaming:
        if (const auto stream = self->sse_.lock()) stream->end(StreamEnd::kShutdown);
        return;
      case Phase::kAnswering:
      case Phase::kClosed: return;
    }
  });
}

// ConnectionLimit gave this connection's place to a newer one: it was waiting for a request
// without having shown a valid token (connection_limit.h). A request already being answered is
// answered first (respond() then closes).
void HttpConnection::evicted() {
  if (ending_ == Ending::kNo) ending_ = Ending::kEvicted;
  if (phase_ == Phase::kReading) close();
}

void HttpConnection::read_request() {
  if (phase_ == Phase::kClosed || ending_ != Ending::kNo) return close();
  if (const auto due = head_.next_request()) expire_at(*due);
  authentication_.reset();
  if (ticket_ && !ticket_->authenticated()) ticket_->waiting(true);
  if (buffer_.size() > 0) return parse_head();  // a pipelined request is here already
  if (read_pending_) return;  // the peer watch's read (watch_peer) is this one's
  read_head();
}

// The head is read with plain reads and given to Beast's parser as it comes, rather than with
// beast::http::async_read_header, so that the connection sees its first bytes: the head must be
// whole within the header timeout of them (a kept-alive connection may idle for the read timeout,
// but not trickle its next head for as long).
void HttpConnection::read_head() {
  read_pending_ = true;
  const size_t room = beast::read_size(buffer_, 65536);  // what Beast's own reads ask for
  with_stream([&](auto& stream) {
    stream.async_read_some(buffer_.prepare(room), [self = shared_from_this()](beast::error_code ec, size_t n) {
      self->read_done();
      if (!self->closed()) self->on_head_bytes(ec, n);
    });
  });
}

void HttpConnection::on_head_bytes(beast::error_code ec, size_t bytes) {
  if (phase_ != Phase::kReading) return on_peer_bytes(ec, bytes);
  if (ec) return close();  // the client closed (between requests, or leaving half a head), a reset, a cut
  buffer_.commit(bytes);
  parse_head();
}

void HttpConnection::parse_head() {
  auto progress = head_.parse(buffer_);
  if (!progress) return refuse(std::move(progress).error());
  if (*progress == RequestHead::Progress::kNeedMore) {
    if (const auto due = head_.partial()) expire_at(std::min(deadline_, *due));
    return read_head();
  }
  on_header();
}

std::optional<HttpReply> HttpConnection::admit() {
  if (settings_->authenticate) authentication_ = settings_->authenticate(head_.authorization());
  const std::string tenant = authentication_ && *authentication_ ? (**authentication_)->tenant : std::string();
  switch (ticket_->request(tenant)) {
    case ConnectionLimit::Ticket::Verdict::kAdmitted: return std::nullopt;
    case ConnectionLimit::Ticket::Verdict::kOnProbationWithoutToken: {
      ErrorEnvelope e(ErrorCode::kRateLimited,
                      "service unavailable: the front's remaining connections are kept for authenticated agents",
                      "retry in a second; requests with a valid bearer token are served (plugin_opt_http_reserved_connections)");
      e.retry_after_ms = 1000;
      return envelope_reply(503, e);
    }
    case ConnectionLimit::Ticket::Verdict::kTenantFull: {
      ErrorEnvelope e(ErrorCode::kRateLimited, "too many connections: this tenant holds its share of the front's connections",
                      "close idle connections or streams, or reuse one; the operator sets "
                      "plugin_opt_http_max_connections_per_tenant");
      e.retry_after_ms = 1000;
      return envelope_reply(429, e);
    }
  }
  return std::nullopt;
}

void HttpConnection::on_header() {
  if (ticket_ && !ticket_->authenticated()) {
    if (auto refusal = admit()) return refuse(std::move(*refusal));
  }
  // Only requests with a large body are screened: a small one costs no more to read than its
  // headers.
  if (settings_->screen && head_.large_body()) {
    HttpRequest request = head_.request(false);
    request.authentication = std::move(authentication_);
    if (auto refusal = settings_->screen(request)) return refuse(std::move(*refusal));  // body unread
    authentication_ = std::move(request.authentication);
  }
  auto& parser = head_.parser();
  if (parser.is_done()) return on_request({});
  // A small request usually arrives whole: its body is in the buffer already. Parse it here;
  // async_read would find it there too, but post its completion (one more round of the io
  // thread's scheduler, with a non-blocking epoll_wait, per request).
  if (!parser.chunked() && parser.content_length().value_or(UINT64_MAX) <= buffer_.size()) {
    beast::error_code body_ec;
    buffer_.consume(parser.put(buffer_.data(), body_ec));
    if (body_ec || parser.is_done()) return on_request(body_ec);
  }
  // The body within the read timeout of the request's start, not the (shorter) header timeout.
  expire_at(head_.body_due());
  read_pending_ = true;
  with_stream([&](auto& stream) {
    bhttp::async_read(stream, buffer_, parser, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->read_done();
      if (!self->closed()) self->on_request(ec);
    });
  });
}

void HttpConnection::on_request(beast::error_code ec) {
  if (auto refusal = RequestHead::body_refusal(ec)) return refuse(std::move(*refusal));
  if (ec) return close();  // end of stream, timeout, reset
  expire_never();  // a request being handled (a long tool call) is not cut
  dispatch_request();
}

void HttpConnection::dispatch_request() {
  phase_ = Phase::kHandling;
  if (ticket_ && !ticket_->authenticated()) ticket_->waiting(false);  // being answered: not evicted
  HttpRequest request = head_.request(true);
  request.authentication = std::move(authentication_);
  auto exchange = std::make_shared<ConnectionExchange>(shared_from_this(), std::move(request), head_.keep_alive());
  try {
    settings_->handler(exchange);
  } catch (const std::exception& e) {  // the HTTP handler boundary (CONTRIBUTING): answer, log, carry on
    if (settings_->log) settings_->log(std::string("fleetmcp http: handler failed: ") + e.what());
    exchange->respond(envelope_reply(ErrorEnvelope(ErrorCode::kInternal, "internal error while handling the request",
                                                   "retry; report this to the operator if it repeats")));
  }
}

void HttpConnection::respond(HttpReply reply, bool keep_alive) {
  if (phase_ != Phase::kHandling) return;
  phase_ = Phase::kAnswering;
  peer_closed_ = nullptr;  // answered: the client's close is no longer a cancel
  if (settings_->on_status) settings_->on_status(reply.status);
  const bool keep = keep_alive && ending_ == Ending::kNo;
  write_response_text(reply, keep, response_);
  // Over plain TCP an answer usually fits in the socket's send buffer: write it here and go on at
  // once. async_write would also write it at once, but post its completion: one more round of the
  // io thread's scheduler, with a non-blocking epoll_wait, per request (issue 15). What does not
  // fit is left to async_write. TLS always goes through async_write.
  size_t written = 0;
  if (auto* plain = std::get_if<PlainStream>(&stream_)) {
    beast::error_code ec;
    written = plain->write_some(asio::buffer(response_), ec);  // never blocks: start() made the socket non-blocking
    if (ec == asio::error::would_block) ec = {};
    if (ec || written == response_.size()) return responded(ec, keep);
  }
  with_stream([&](auto& stream) {
    asio::async_write(stream, asio::buffer(response_) + written,
                      [self = shared_from_this(), keep](beast::error_code ec, size_t) { self->responded(ec, keep); });
  });
}

// The answer is written (or could not be): the connection waits for the next request or closes.
// May run inside respond(), so inside the handler that answered; nothing of the exchange is used.
void HttpConnection::responded(beast::error_code ec, bool keep) {
  // A large answer (a tools/list page) is not kept for the rest of the connection's life.
  if (response_.capacity() > kKeptResponseBytes) std::string().swap(response_);
  if (closed()) return;
  phase_ = Phase::kReading;
  if (ec || !keep) return close();
  read_request();
}

void HttpConnection::abandon() { close(); }

// The watch is the first read of the next request, started early: a client that closes while its
// request is handled ends it (an EOF or a reset), and one that sends its next request meanwhile
// (pipelining) has it kept in the buffer for read_request(). Answered first, the read goes on as
// the next request's (on_head_bytes). Costs no system call of its own: the read after the answer
// would have been made anyway.
void HttpConnection::watch_peer(std::function<void()> closed) {
  if (phase_ != Phase::kHandling || read_pending_ || buffer_.size() > 0) return;
  peer_closed_ = std::move(closed);
  read_head();
}

void HttpConnection::on_peer_bytes(beast::error_code ec, size_t bytes) {
  if (!ec) {
    buffer_.commit(bytes);  // the next request, parsed once this one is answered
    return;
  }
  const auto closed = std::move(peer_closed_);
  peer_closed_ = nullptr;
  close();
  if (closed) closed();
}

void HttpConnection::refuse(HttpReply reply) {
  phase_ = Phase::kHandling;
  linger_ = true;
  respond(std::move(reply), false);
}

void HttpConnection::close() {
  if (closed()) return;
  phase_ = Phase::kClosed;
  open_ = false;
  peer_closed_ = nullptr;
  if (const auto stream = sse_.lock()) stream->closed();
  // A refusal answered a request whose rest is still coming (a body, the end of a too large
  // head): closing with unread bytes would reset the connection, and the client could lose the
  // answer before reading it (RFC 9112 §9.6). Half-close, drop what still comes for at most a
  // second, then close. (A refused request never streams: nothing else is being written.)
  if (linger_ && std::holds_alternative<PlainStream>(stream_)) {
    beast::error_code ignored;
    tcp().shutdown(asio::socket_base::shutdown_send, ignored);
    expire_after(std::chrono::seconds(1));
    return drain();
  }
  // A TLS client is told the end is deliberate (close_notify), so a body that ends with the
  // connection (an SSE stream) is not taken for a truncation. Only when nothing else is being
  // written: a client that does not take its frames gets the plain cut.
  if (tls_ == Tls::kNone || stream_writing()) return close_socket();
  if (!read_pending_) return shutdown_tls();
  beast::error_code ignored;
  tcp().cancel(ignored);  // the read's handler (read_done) goes on with the close
}

bool HttpConnection::stream_writing() const {
  const auto stream = sse_.lock();
  return stream && stream->writing();
}

void HttpConnection::drain() {
  buffer_.clear();
  tcp().async_read_some(buffer_.prepare(16 * 1024), [self = shared_from_this()](beast::error_code ec, size_t) {
    if (ec) return self->close_socket();  // the client closed too (or the second passed)
    self->drain();
  });
}

void HttpConnection::read_done() {
  read_pending_ = false;
  if (closed() && tls_ != Tls::kNone && !stream_writing()) shutdown_tls();
}

void HttpConnection::shutdown_tls() {
  if (tls_ == Tls::kClosing) return;
  tls_ = Tls::kClosing;
  expire_after(std::chrono::seconds(1));
  std::get<TlsStream>(stream_).async_shutdown([self = shared_from_this()](beast::error_code) { self->close_socket(); });
}

void HttpConnection::close_socket() {
  beast::error_code ignored;
  tcp().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  tcp().close(ignored);
  ticket_.reset();  // the descriptor is free again
  expire_never();
  timer_at_ = Clock::time_point::max();
  deadline_timer_.cancel();  // a closed connection leaves no wait in the io_context's timer queue
}

// Timeouts: the header timeout (a request head within it of its first byte, a new
// connection's handshake and first head within it of its start), the read timeout (waiting for a
// request, idle keep-alive or a slow one), and the 1 s bounds on the TLS close and on a lingering
// close, without a timer per request. request_head.h says which deadline each phase has.
//
// Beast's basic_stream armed an asio timer before every read and cancelled it when the request
// was in: per request a timer-queue insert and removal and two timerfd_settime system calls on a
// path that is otherwise ~10 system calls long (bench/profile.sh calls). Here a phase that must
// end in time only stores its deadline (a clock read from the vDSO, no system call), and one
// timer per connection looks at it when it fires:
//   - past the deadline: the connection is cut (close(): over TLS with close_notify, bounded);
//   - a later deadline (requests kept coming): it sleeps again until that one;
//   - nothing timed (a request is being handled, a stream is open): it stops until the next
//     phase that is timed arms it again.
// A busy keep-alive connection so wakes its timer about once per read timeout instead of twice
// per request. A deadline earlier than the timer's wake-up (the TLS close's 1 s, the header
// timeout of a head that did not come in one read) moves the timer; a head that arrives whole in
// its first read, as nearly every request does, moves nothing.
// The timer never cuts early: it acts only on the deadline stored now, whatever it was armed for.
void HttpConnection::expire_at(Clock::time_point deadline) {
  deadline_ = deadline;
  if (deadline_ < timer_at_) wait_for_deadline();
}

void HttpConnection::wait_for_deadline() {
  timer_at_ = deadline_;
  deadline_timer_.expires_at(timer_at_);  // a wait still pending ends with operation_aborted
  deadline_timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    const auto self = weak.lock();
    if (self && ec != boost::asio::error::operation_aborted) self->on_deadline_timer();
  });
}

void HttpConnection::on_deadline_timer() {
  timer_at_ = Clock::time_point::max();
  if (deadline_ == Clock::time_point::max()) return;  // nothing timed now
  if (Clock::now() < deadline_) return wait_for_deadline();
  expire_never();
  if (!closed()) return close();  // no request (or handshake) in time
  close_socket();                 // the TLS close or the lingering close took too long
}

// Stream mode (sse_stream.h): the stream writes and watches through this connection's socket.
std::shared_ptr<EventStream> HttpConnection::open_stream(std::vector<Header> headers, StreamLimits limits) {
  phase_ = Phase::kStreaming;
  auto stream = std::make_shared<SseStream>(std::shared_ptr<StreamSocket>(shared_from_this(), this), scheduler_,
                                            limits, settings_->close_grace);
  sse_ = stream;
  if (settings_->on_status) settings_->on_status(200);
  stream->start(std::move(headers));
  if (ending_ == Ending::kShuttingDown) asio::post(tcp().get_executor(), [stream] { stream->end(StreamEnd::kShutdown); });
  return stream;
}

void HttpConnection::write(std::string_view bytes, std::function<void(bool ok, size_t written)> done) {
  with_stream([&](auto& stream) {
    asio::async_write(stream, asio::buffer(bytes.data(), bytes.size()),
                      [self = shared_from_this(), done = std::move(done)](beast::error_code ec, size_t n) { done(!ec, n); });
  });
}

void HttpConnection::read_some(std::function<void(bool ok)> done) {
  read_pending_ = true;
  buffer_.clear();
  with_stream([&](auto& stream) {
    stream.async_read_some(buffer_.prepare(kPeerWatchBytes),
                           [self = shared_from_this(), done = std::move(done)](beast::error_code ec, size_t) {
                             self->read_done();
                             if (!self->closed()) done(!ec);
                           });
  });
}

uint64_t HttpConnection::unacked_bytes() {
  int pending = 0;
  if (::ioctl(tcp().native_handle(), SIOCOUTQ, &pending) != 0 || pending < 0) return 0;
  return static_cast<uint64_t>(pending);
}

}  // namespace fleetmcp::http
