#include "broker_plugin/http/http_connection.h"

#include <iterator>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>

#include "broker_plugin/http/error_status.h"

namespace fleetmcp::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

constexpr uint64_t kScreenBodiesAbove = 16 * 1024;
constexpr size_t kKeptResponseBytes = 16 * 1024;
// Room for a whole typical request (headers with a ~400-byte bearer token, a small JSON body) so
// that it is read with one recv and its header parsed once. Beast reads at most the buffer's free
// capacity (at least 512 bytes): with the default buffer, a ~650-byte tools/call took two reads
// (538 and 116 bytes) and two parses of the header. Costs 4 KiB per connection from its start,
// idle ones included: 2 MiB at the default plugin_opt_http_max_connections of 512, 40 MiB at
// 10,000. A larger request still grows the buffer as before.
constexpr size_t kReadBufferBytes = 4 * 1024;

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

// The method, target and headers; the body is the caller's to take.
HttpRequest head_of(const bhttp::request<bhttp::string_body>& r) {
  HttpRequest out;
  out.method = std::string(r.method_string());
  out.target = std::string(r.target());
  out.headers.reserve(static_cast<size_t>(std::distance(r.begin(), r.end())));
  for (const auto& field : r) out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  return out;
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
      settings_(std::move(settings)) {
  buffer_.reserve(kReadBufferBytes);
  scheduler_ = std::make_shared<AsioScheduler>(io_);  // the socket's executor is io_'s (http_server.cc)
}

HttpConnection::Socket& HttpConnection::tcp() {
  return std::visit([](auto& s) -> Socket& { return beast::get_lowest_layer(s); }, stream_);
}

HttpConnection::Executor HttpConnection::executor() { return tcp().get_executor(); }

// From the acceptor's handler (http_server.cc), on another io thread or this one: inline when it
// is this one, which is safe as the acceptor calls it last, holding nothing.
void HttpConnection::start() {
  asio::dispatch(tcp().get_executor(), [self = shared_from_this()] {
    // respond()'s write_some must return would_block rather than wait for room (asio's own
    // non-blocking mode only covers its asynchronous operations).
    beast::error_code ignored;
    self->tcp().non_blocking(true, ignored);
    if (std::holds_alternative<TlsStream>(self->stream_)) return self->handshake();
    self->read_request();
  });
}

// The TLS handshake, under the same timeout as a request: a client that never completes it is cut.
void HttpConnection::handshake() {
  expire_after(settings_->read_timeout);
  std::get<TlsStream>(stream_).async_handshake(asio::ssl::stream_base::server,
                                               [self = shared_from_this()](beast::error_code ec) {
                                                 if (ec) return self->close();  // not TLS, or no common ground
                                                 self->tls_ready_ = true;
                                                 self->read_request();
                                               });
}

void HttpConnection::shutdown() {
  asio::post(tcp().get_executor(), [self = shared_from_this()] {
    self->shutting_down_ = true;
    if (self->streaming_) self->stream_end(StreamEnd::kShutdown);
    else if (!self->busy_) self->close();
    else if (!self->answering_) self->respond(shutdown_reply(), false);
  });
}

void HttpConnection::read_request() {
  if (closed_ || shutting_down_) return close();
  parser_.emplace();
  parser_->body_limit(settings_->max_body_bytes);
  expire_after(settings_->read_timeout);  // the whole request, headers and body, within it
  read_pending_ = true;
  // The headers first: a request the front refuses on them (no token) never has its body read.
  with_stream([&](auto& stream) {
    bhttp::async_read_header(stream, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->read_done();
      if (!self->closed_) self->on_header(ec);
    });
  });
}

void HttpConnection::on_header(beast::error_code ec) {
  if (ec) return on_request(ec);
  // Only requests with a large body are screened: a small one costs no more to read than its
  // headers, and screening it would authenticate every tools/call twice.
  const bool large_body = !parser_->is_done() &&
                          (parser_->chunked() || parser_->content_length().value_or(0) > kScreenBodiesAbove);
  if (settings_->screen && large_body) {
    if (auto refusal = settings_->screen(head_of(parser_->get()))) {
      busy_ = true;
      answering_ = false;
      return respond(std::move(*refusal), false);  // the body stays unread: the connection ends
    }
  }
  if (parser_->is_done()) return on_request(ec);
  // A small request usually arrives whole: its body is in the buffer already. Parse it here;
  // async_read would find it there too, but post its completion (one more round of the io
  // thread's scheduler, with a non-blocking epoll_wait, per request).
  if (!parser_->chunked() && parser_->content_length().value_or(UINT64_MAX) <= buffer_.size()) {
    beast::error_code body_ec;
    buffer_.consume(parser_->put(buffer_.data(), body_ec));
    if (body_ec || parser_->is_done()) return on_request(body_ec);
  }
  read_pending_ = true;
  with_stream([&](auto& stream) {
    bhttp::async_read(stream, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->read_done();
      if (!self->closed_) self->on_request(ec);
    });
  });
}

void HttpConnection::on_request(beast::error_code ec) {
  if (ec == bhttp::error::body_limit) {
    ErrorEnvelope e(ErrorCode::kBadRequest, "request body too large",
                    "send at most plugin_opt_http_max_body_bytes bytes");
    return respond(envelope_reply(413, e), false);
  }
  if (ec) return close();  // end of stream, timeout, reset or a request Beast could not parse
  expire_never();  // a request being handled (a long tool call) is not cut
  dispatch_request();
}

void HttpConnection::dispatch_request() {
  busy_ = true;
  answering_ = false;
  auto& message = parser_->get();
  HttpRequest request = head_of(message);
  request.body = std::move(message.body());  // the next request gets a new parser
  auto exchange = std::make_shared<ConnectionExchange>(shared_from_this(), std::move(request), message.keep_alive());
  try {
    settings_->handler(exchange);
  } catch (const std::exception& e) {  // the HTTP handler boundary (CONTRIBUTING): answer, log, carry on
    if (settings_->log) settings_->log(std::string("fleetmcp http: handler failed: ") + e.what());
    exchange->respond(envelope_reply(ErrorEnvelope(ErrorCode::kInternal, "internal error while handling the request",
                                                   "retry; report this to the operator if it repeats")));
  }
}

void HttpConnection::respond(HttpReply reply, bool keep_alive) {
  if (closed_ || streaming_ || std::exchange(answering_, true)) return;
  if (settings_->on_status) settings_->on_status(reply.status);
  const bool keep = keep_alive && !shutting_down_;
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
  busy_ = false;
  if (ec || !keep) return close();
  read_request();
}

void HttpConnection::abandon() { close(); }

void HttpConnection::close() {
  if (closed_) return;
  closed_ = true;
  open_ = false;
  monitor_.reset();
  grace_.reset();
  // A TLS client is told the end is deliberate (close_notify), so a body that ends with the
  // connection (an SSE stream) is not taken for a truncation. Only when nothing else is being
  // written: a client that does not take its frames gets the plain cut.
  if (!tls_ready_ || writing_) return close_socket();
  if (!read_pending_) return shutdown_tls();
  beast::error_code ignored;
  tcp().cancel(ignored);  // the read's handler (read_done) goes on with the close
}

void HttpConnection::read_done() {
  read_pending_ = false;
  if (closed_ && tls_ready_ && !writing_) shutdown_tls();
}

void HttpConnection::shutdown_tls() {
  if (std::exchange(tls_closing_, true)) return;
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

}  // namespace fleetmcp::http
