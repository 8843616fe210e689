// One client connection of the Beast server (http_server.h): reads requests with Beast's parser
// (no HTTP parsing of ours), hands each to the front as an Exchange, writes the reply, and keeps
// the connection alive between requests. An exchange may instead turn the connection into a
// Server-Sent Events stream ("Stream mode" below): the response header, then frames until the
// stream finishes, and the connection is closed after it.
//
// With TLS (plugin_opt_http_tls_*) the same happens inside a TLS session, after a handshake.
//
// Everything runs on the one thread of the connection's io_context (no strand: that thread runs
// every handler of the io_context one at a time, http_front.cc). Internal to the HTTP front.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "broker_plugin/http/transport/asio_scheduler.h"
#include "broker_plugin/http/transport/connection_limit.h"
#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/transport/frame_backlog.h"
#include "broker_plugin/http/transport/host_policy.h"

namespace fleetmcp::http {

struct ConnectionSettings {
  std::function<void(std::shared_ptr<Exchange>)> handler;
  std::function<void(int status)> on_status;  // every response status, for /metrics
  std::function<void(std::string_view)> log;  // errors caught at this boundary
  size_t max_body_bytes = 4 << 20;
  size_t max_header_bytes = 8192;  // a larger request head: 431
  // Idle keep-alive and a slow request (plugin_opt_http_read_timeout_ms); never a request being
  // handled nor a stream.
  std::chrono::milliseconds read_timeout{60000};
  // A request head within it of its first byte; a new connection's TLS handshake and first head
  // within it of the connection's start (plugin_opt_http_header_timeout_ms).
  std::chrono::milliseconds header_timeout{5000};
  std::chrono::milliseconds close_grace{2000};  // how long a last frame may take before the cut
  std::shared_ptr<boost::asio::ssl::context> tls;  // null: plain HTTP
  // Looks at the start line and headers of a request with a body over 16 KiB (or chunked)
  // before that body is read: a reply refuses the request there (no token: 401) and the body is
  // never read. Null: every body is read.
  std::function<std::optional<HttpReply>(const HttpRequest& head)> screen;
  std::shared_ptr<ConnectionLimit> connections;  // null: no cap (unit tests)
  std::shared_ptr<const HostPolicy> hosts;       // null: any Host (unit tests)
  // The tenant of a valid bearer token in an Authorization header, or "" (none, or not valid).
  // Asked on a connection's requests until one has a valid token (ConnectionLimit::Ticket).
  std::function<std::string(std::optional<std::string_view> authorization)> tenant_of;
};

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  // The io_context's executor as a concrete type, not any_io_executor: Beast's operations on a
  // type-erased executor allocate on every prefer/require, ~25 times per request
  // (bench/profile.sh calls --callgrind). Not a strand: the io_context has one thread.
  using Executor = AsioScheduler::Executor;
  // A plain socket, not Beast's basic_stream: the timeouts are the connection's own (http_connection.cc, "Timeouts").
  using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, Executor>;
  using PlainStream = Socket;
  using TlsStream = boost::beast::ssl_stream<Socket>;
  using Transport = std::variant<PlainStream, TlsStream>;
  using Clock = std::chrono::steady_clock;
  using DeadlineTimer = boost::asio::basic_waitable_timer<Clock, boost::asio::wait_traits<Clock>, Executor>;

  HttpConnection(Socket socket, std::shared_ptr<boost::asio::io_context> io,
                 std::shared_ptr<const ConnectionSettings> settings);

  void start();
  // Keeps the connection's place under ConnectionLimit until the socket is closed, or until the
  // limit takes it back for a newer connection (then the connection closes).
  void hold(std::unique_ptr<ConnectionLimit::Ticket> ticket);
  bool is_open() const { return open_.load(); }  // until close(); any thread
  // The server is stopping: streams end with StreamEnd::kShutdown, idle connections close, and a
  // request still waiting for its answer gets 503 E_NODE_OFFLINE "the broker is shutting down".
  // Any thread.
  void shutdown();

  // For the exchange (on the io thread).
  void respond(HttpReply reply, bool keep_alive);
  void abandon();
  std::shared_ptr<EventStream> open_stream(std::vector<Header> headers, StreamLimits limits);
  const std::shared_ptr<AsioScheduler>& scheduler() const { return scheduler_; }
  Executor executor();

  // Stream mode, on the io thread.
  void stream_send(std::string text, bool counted);
  void stream_finish(std::string last);
  void stream_on_end(std::function<void(StreamEnd)> handler);

 private:
  void read_request();
  void read_head();
  void on_head_bytes(boost::beast::error_code ec, size_t bytes);
  void parse_head();
  // The checks on a whole request head (Host, the connection's admission): a refusal, or nothing.
  std::optional<HttpReply> check_head();
  void on_header();
  void on_request(boost::beast::error_code ec);
  void dispatch_request();
  void responded(boost::beast::error_code ec, bool keep);
  // Answers a request that was not read to its end and closes the connection gently (linger_).
  void refuse(HttpReply reply);
  void evicted();
  void close();
  void drain();

  // Stream mode.
  struct Frame {
    std::string text;
    bool counted = false;
  };
  void write_next();
  void stream_end(StreamEnd why);
  void watch_peer();
  void arm_monitor();
  uint64_t unacked_bytes();

  // The TCP socket under either transport (its executor is the io_context's).
  Socket& tcp();
  // Runs f(stream) on whichever transport this connection has (Beast's operations are templates).
  template <typename F>
  void with_stream(F&& f) {
    std::visit(std::forward<F>(f), stream_);
  }
  void handshake();
  void read_done();       // a read finished: if close() was waiting on it, the close goes on
  void shutdown_tls();    // close_notify, bounded, then close_socket()
  void close_socket();

  // Timeouts (http_connection.cc, "Timeouts"): a stored deadline that one timer checks now and then.
  void expire_after(std::chrono::milliseconds timeout) { expire_at(Clock::now() + timeout); }
  void expire_at(Clock::time_point deadline);
  void expire_never() { deadline_ = Clock::time_point::max(); }
  void wait_for_deadline();
  void on_deadline_timer();

  Transport stream_;
  DeadlineTimer deadline_timer_;
  Clock::time_point deadline_ = Clock::time_point::max();   // max: nothing is timed
  Clock::time_point timer_at_ = Clock::time_point::max();   // when the timer's wait ends; max: none
  Clock::time_point request_started_;  // when the connection began to wait for this request
  std::unique_ptr<ConnectionLimit::Ticket> ticket_;
  std::shared_ptr<boost::asio::io_context> io_;
  std::shared_ptr<AsioScheduler> scheduler_;
  std::shared_ptr<const ConnectionSettings> settings_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  bool closed_ = false;
  bool read_pending_ = false;   // a request read or the stream's peer watch is outstanding
  bool tls_ready_ = false;      // the handshake completed: close() may send close_notify
  bool tls_closing_ = false;
  std::atomic<bool> open_{true};  // !closed_, readable from other threads
  bool shutting_down_ = false;
  bool busy_ = false;  // an exchange is being handled
  bool answering_ = false;  // its response is being written (at most one per request)
  bool first_request_ = true;
  bool head_started_ = false;  // part of the current request's head has arrived
  bool linger_ = false;        // close() reads what the client still sends before closing
  bool evicted_ = false;       // ConnectionLimit gave this connection's place to a newer one
  std::string response_;    // what respond() is writing; reused from one request to the next
  std::string accepted_host_;  // the Host of the last request HostPolicy allowed

  // Stream mode state.
  bool streaming_ = false, writing_ = false, finishing_ = false, stream_ended_ = false;
  StreamLimits limits_;
  std::deque<Frame> frames_;
  std::optional<FrameBacklog> backlog_;
  std::function<void(StreamEnd)> end_handler_;
  std::unique_ptr<Timer> monitor_, grace_;
  std::array<char, 512> peer_bytes_{};
};

}  // namespace fleetmcp::http
