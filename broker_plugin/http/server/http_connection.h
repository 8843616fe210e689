// One client connection of the Beast server (http_server.h): reads requests with Beast's parser
// (no HTTP parsing of ours), hands each to the front as an Exchange, writes the reply, and keeps
// the connection alive between requests. Its parts, one job each:
//   - request_head.h: a request's head, the limits on it (400, 413, 431), the Host check and the
//     deadlines that bound a slow client;
//   - here: the socket (plain TCP, or TLS after a handshake when plugin_opt_http_tls_* is set),
//     the connection limit's ticket (connection_limit.h: 503, 429), the front's screen of a
//     large body's head, the answer, the one timer, and the close;
//   - sse_stream.h: stream mode, when an exchange turns the response into a Server-Sent Events
//     stream; the connection is closed after it.
// A request's bearer token is checked at most once, whoever asks first (ConnectionSettings::
// authenticate, screen, the front's handler): the verdict travels with the request.
//
// Everything runs on the one thread of the connection's io_context (no strand: that thread runs
// every handler of the io_context one at a time, http_front.cc). Internal to the HTTP front.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "broker_plugin/http/server/connection_settings.h"
#include "broker_plugin/http/server/request_head.h"
#include "broker_plugin/http/server/sse_stream.h"
#include "broker_plugin/http/transport/asio_scheduler.h"
#include "broker_plugin/http/transport/connection_limit.h"
#include "broker_plugin/http/transport/exchange.h"

namespace fleetmcp::http {

class HttpConnection : public std::enable_shared_from_this<HttpConnection>, private StreamSocket {
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
  using Clock = RequestHead::Clock;
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
  void watch_peer(std::function<void()> closed);  // Exchange::on_peer_closed
  std::shared_ptr<EventStream> open_stream(std::vector<Header> headers, StreamLimits limits);
  const std::shared_ptr<AsioScheduler>& scheduler() const { return scheduler_; }
  Executor executor();

 private:
  // Where the connection is with its current request; kClosed from close() on.
  enum class Phase {
    kReading,    // waiting for a request, or reading one
    kHandling,   // the front has the exchange (or a refusal is about to be answered)
    kAnswering,  // its response is being written (at most one per request)
    kStreaming,  // the exchange turned into a stream (sse_stream.h)
    kClosed,
  };
  // Why no further request will be read once this one is answered.
  enum class Ending { kNo, kEvicted, kShuttingDown };
  enum class Tls { kNone, kReady, kClosing };  // kNone: plain TCP, or the handshake is not done

  void read_request();
  void read_head();
  void on_head_bytes(boost::beast::error_code ec, size_t bytes);
  void on_peer_bytes(boost::beast::error_code ec, size_t bytes);  // while a request is handled (watch_peer)
  void parse_head();
  void on_header();
  // The connection limit's look at a request of an unauthenticated connection: a refusal, or nothing.
  std::optional<HttpReply> admit();
  void on_request(boost::beast::error_code ec);
  void dispatch_request();
  void responded(boost::beast::error_code ec, bool keep);
  // Answers a request that was not read to its end and closes the connection gently (linger_).
  void refuse(HttpReply reply);
  void evicted();
  void close() override;
  void drain();
  bool stream_writing() const;

  // StreamSocket, for the stream mode.
  void write(std::string_view bytes, std::function<void(bool ok, size_t written)> done) override;
  void read_some(std::function<void(bool ok)> done) override;
  uint64_t unacked_bytes() override;
  bool closed() const override { return phase_ == Phase::kClosed; }

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
  std::unique_ptr<ConnectionLimit::Ticket> ticket_;
  std::shared_ptr<boost::asio::io_context> io_;
  std::shared_ptr<AsioScheduler> scheduler_;
  std::shared_ptr<const ConnectionSettings> settings_;
  boost::beast::flat_buffer buffer_;
  RequestHead head_;
  // The verdict on this request's bearer token, once someone asked (ConnectionSettings::authenticate).
  std::optional<Authentication> authentication_;
  Phase phase_ = Phase::kReading;
  Ending ending_ = Ending::kNo;
  Tls tls_ = Tls::kNone;
  std::atomic<bool> open_{true};  // phase_ != kClosed, readable from other threads
  bool read_pending_ = false;     // a request read or the stream's peer watch is outstanding
  bool linger_ = false;           // close() reads what the client still sends before closing
  std::string response_;          // what respond() is writing; reused from one request to the next
  std::function<void()> peer_closed_;  // the exchange's (watch_peer), until it is answered
  std::weak_ptr<SseStream> sse_;  // in stream mode (the endpoint and the stream's own I/O hold it)
};

}  // namespace fleetmcp::http
