#include "broker_plugin/http/transport/http_connection.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <iterator>
#include <sstream>

#include <boost/asio/buffer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/write.hpp>

#include "broker_plugin/http/transport/error_status.h"

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

std::string_view std_view(beast::string_view s) { return {s.data(), s.size()}; }  // Beast 1.74's is Boost's

// A request Beast could not parse, or one this front refuses to read on (obs-fold, Host): 400
// with what is wrong, so the client sees more than a closed connection.
HttpReply malformed_reply(std::string_view what) {
  return envelope_reply(400, ErrorEnvelope(ErrorCode::kBadRequest, "malformed request: " + std::string(what),
                                           "send a well-formed HTTP/1.1 request (RFC 9112)"));
}

// Beast's errors for bytes that are not HTTP (as opposed to a client that went away or a limit).
bool is_malformed(const beast::error_code& ec) {
  if (!ec || ec.category() != bhttp::make_error_code(bhttp::error::bad_method).category()) return false;
  switch (static_cast<bhttp::error>(ec.value())) {
    case bhttp::error::bad_line_ending:
    case bhttp::error::bad_method:
    case bhttp::error::bad_target:
    case bhttp::error::bad_version:
    case bhttp::error::bad_field:
    case bhttp::error::bad_value:
    case bhttp::error::bad_content_length:
    case bhttp::error::bad_transfer_encoding:
    case bhttp::error::bad_chunk:
    case bhttp::error::bad_chunk_extension:
    case bhttp::error::bad_obs_fold:
      return true;
    default:
      return false;
  }
}

// Obsolete line folding (a header line that starts with a space or tab) in a request head. Beast
// 1.74 unfolds it silently; RFC 9112 §5.2 lets a server refuse it instead, which this front does:
// folded values are a request-smuggling vector between parsers that disagree about them.
bool has_obs_fold(std::string_view head) {
  for (size_t nl = head.find('\n'); nl != std::string_view::npos && nl + 1 < head.size(); nl = head.find('\n', nl + 1)) {
    if (head[nl + 1] == ' ' || head[nl + 1] == '\t') return true;
  }
  return false;
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

// Stream mode: the EventStream of exchange.h over the connection's socket.
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
    const auto& s = *self->settings_;
    self->request_started_ = Clock::now();
    self->expire_at(self->request_started_ + std::min(s.header_timeout, s.read_timeout));
    if (std::holds_alternative<TlsStream>(self->stream_)) return self->handshake();
    self->read_request();
  });
}

void HttpConnection::handshake() {
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

// ConnectionLimit gave this connection's place to a newer one: it was waiting for a request
// without having shown a valid token (connection_limit.h). A request already being answered is
// answered first (respond() then closes).
void HttpConnection::evicted() {
  evicted_ = true;
  if (!busy_) close();
}

void HttpConnection::read_request() {
  if (closed_ || shutting_down_ || evicted_) return close();
  parser_.emplace();
  parser_->body_limit(settings_->max_body_bytes);
  parser_->header_limit(static_cast<uint32_t>(settings_->max_header_bytes));
  // The next request on a kept-alive connection, headers and body, within the read timeout of the
  // last answer; the first one's deadline was set when the connection started.
  if (!std::exchange(first_request_, false)) {
    request_started_ = Clock::now();
    expire_at(request_started_ + settings_->read_timeout);
  }
  if (ticket_ && !ticket_->authenticated()) ticket_->waiting(true);
  head_started_ = false;
  if (buffer_.size() > 0) return parse_head();  // a pipelined request is here already
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
      if (!self->closed_) self->on_head_bytes(ec, n);
    });
  });
}

void HttpConnection::on_head_bytes(beast::error_code ec, size_t bytes) {
  if (ec) return close();  // the client closed (between requests, or leaving half a head), a reset, a cut
  buffer_.commit(bytes);
  parse_head();
}

void HttpConnection::parse_head() {
  beast::error_code ec;
  const auto data = buffer_.data();
  const size_t used = parser_->put(data, ec);
  if (ec == bhttp::error::need_more) {
    buffer_.consume(used);
    // Part of a head: the rest within the header timeout (a head that came whole in its first
    // read, nearly every request, never gets here and moves no timer).
    if (!std::exchange(head_started_, true)) expire_at(std::min(deadline_, Clock::now() + settings_->header_timeout));
    return read_head();
  }
  const bool folded = !ec && has_obs_fold(std::string_view(static_cast<const char*>(data.data()), used));
  buffer_.consume(used);
  if (ec == bhttp::error::header_limit) {
    return refuse(envelope_reply(
        431, ErrorEnvelope(ErrorCode::kBadRequest,
                           "request header fields too large: the request head is over " +
                               std::to_string(settings_->max_header_bytes) + " bytes",
                           "send a shorter request head (a shorter token); the operator may raise "
                           "plugin_opt_http_max_header_bytes")));
  }
  if (ec == bhttp::error::body_limit) return on_request(ec);  // a Content-Length over the limit: 413
  if (ec) return refuse(malformed_reply(ec.message()));
  if (folded) return refuse(malformed_reply("a header field is folded over two lines (obs-fold, RFC 9112 section 5.2)"));
  on_header();
}

std::optional<HttpReply> HttpConnection::check_head() {
  const auto& head = parser_->get();
  // One pass over the fields (a handful, compared by Beast's field enum) rather than a lookup by
  // name for each: this runs for every request.
  std::optional<std::string_view> host, authorization;
  size_t hosts = 0;
  for (const auto& field : head) {
    if (field.name() == bhttp::field::host) ++hosts, host = std_view(field.value());
    else if (field.name() == bhttp::field::authorization) authorization = std_view(field.value());
  }
  if (settings_->hosts) {
    // RFC 9112 §3.2: one Host, required in HTTP/1.1; a name this front does not serve is a
    // DNS-rebinding page's request (host_policy.h): 421, RFC 9110 §7.4.
    if (hosts > 1) return malformed_reply("more than one Host header");
    if (hosts == 0 && head.version() >= 11) return malformed_reply("no Host header (HTTP/1.1 requires one)");
    // A kept-alive connection names the same Host on every request: the one that passed last is
    // compared byte for byte instead of being checked again.
    if (host && *host != accepted_host_) {
      switch (settings_->hosts->check(*host)) {
        case HostPolicy::Verdict::kAllowed: accepted_host_ = *host; break;
        case HostPolicy::Verdict::kMalformed: return malformed_reply("the Host header is not host[:port]");
        case HostPolicy::Verdict::kNotOurs:
          return envelope_reply(421, ErrorEnvelope(ErrorCode::kBadRequest,
                                                   "misdirected request: this front does not serve that Host",
                                                   "reach the front by a name it serves (localhost, its listen "
                                                   "address); the operator lists others in plugin_opt_http_allowed_hosts"));
      }
    }
  }
  if (ticket_ && !ticket_->authenticated()) {
    const std::string tenant = settings_->tenant_of && authorization ? settings_->tenant_of(authorization) : "";
    switch (ticket_->request(tenant)) {
      case ConnectionLimit::Ticket::Verdict::kAdmitted: break;
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
  }
  return std::nullopt;
}

void HttpConnection::on_header() {
  if (auto refusal = check_head()) return refuse(std::move(*refusal));
  // Only requests with a large body are screened: a small one costs no more to read than its
  // headers, and screening it would authenticate every tools/call twice.
  const bool large_body = !parser_->is_done() &&
                          (parser_->chunked() || parser_->content_length().value_or(0) > kScreenBodiesAbove);
  if (settings_->screen && large_body) {
    if (auto refusal = settings_->screen(head_of(parser_->get()))) return refuse(std::move(*refusal));  // body unread
  }
  if (parser_->is_done()) return on_request({});
  // A small request usually arrives whole: its body is in the buffer already. Parse it here;
  // async_read would find it there too, but post its completion (one more round of the io
  // thread's scheduler, with a non-blocking epoll_wait, per request).
  if (!parser_->chunked() && parser_->content_length().value_or(UINT64_MAX) <= buffer_.size()) {
    beast::error_code body_ec;
    buffer_.consume(parser_->put(buffer_.data(), body_ec));
    if (body_ec || parser_->is_done()) return on_request(body_ec);
  }
  // The body within the read timeout of the request's start, not the (shorter) header timeout.
  expire_at(request_started_ + settings_->read_timeout);
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
    return refuse(envelope_reply(413, e));
  }
  if (is_malformed(ec)) return refuse(malformed_reply(ec.message()));  // a bad chunk
  if (ec) return close();  // end of stream, timeout, reset
  expire_never();  // a request being handled (a long tool call) is not cut
  dispatch_request();
}

void HttpConnection::dispatch_request() {
  busy_ = true;
  answering_ = false;
  if (ticket_ && !ticket_->authenticated()) ticket_->waiting(false);  // being answered: not evicted
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
  const bool keep = keep_alive && !shutting_down_ && !evicted_;
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

void HttpConnection::refuse(HttpReply reply) {
  busy_ = true;
  answering_ = false;
  linger_ = true;
  respond(std::move(reply), false);
}

void HttpConnection::close() {
  if (closed_) return;
  closed_ = true;
  open_ = false;
  monitor_.reset();
  grace_.reset();
  const bool plain = std::holds_alternative<PlainStream>(stream_);
  // A refusal answered a request whose rest is still coming (a body, the end of a too large
  // head): closing with unread bytes would reset the connection, and the client could lose the
  // answer before reading it (RFC 9112 §9.6). Half-close, drop what still comes for at most a
  // second, then close.
  if (plain && linger_ && !writing_) {
    beast::error_code ignored;
    tcp().shutdown(asio::socket_base::shutdown_send, ignored);
    expire_after(std::chrono::seconds(1));
    return drain();
  }
  // A TLS client is told the end is deliberate (close_notify), so a body that ends with the
  // connection (an SSE stream) is not taken for a truncation. Only when nothing else is being
  // written: a client that does not take its frames gets the plain cut.
  if (!tls_ready_ || writing_) return close_socket();
  if (!read_pending_) return shutdown_tls();
  beast::error_code ignored;
  tcp().cancel(ignored);  // the read's handler (read_done) goes on with the close
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

// Timeouts: the header timeout (a request head within it of its first byte, a new
// connection's handshake and first head within it of its start), the read timeout (waiting for a
// request, idle keep-alive or a slow one), and the 1 s bounds on the TLS close and on a lingering
// close, without a timer per request.
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
  if (!closed_) return close();  // no request (or handshake) in time
  close_socket();                // the TLS close or the lingering close took too long
}

// Stream mode. Frames are written one at a time from a queue. Counted frames are limited by a FrameBacklog
// that compares what was written with what the client's TCP has acknowledged (SIOCOUTQ), which
// is RFC-0009 §6's "has not ACKed the oldest frame"; a monitor polls the same figure for the
// idle timeout (§7, 4408). A read stays posted to notice the client closing its side. finish()
// writes the last frame, then half-closes so the kernel still delivers what is queued, and cuts
// the connection if that takes longer than the close grace (a client that stopped reading).
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
