// The head of each request on a connection (http_connection.h) and the limits on it, free of the
// socket: the connection hands it the bytes it reads and keeps the one timer; this says what the
// bytes make and when the next part of the request is due.
//   - Parsing is Beast's (request_parser): a head over plugin_opt_http_max_header_bytes is 431, a
//     body over plugin_opt_http_max_body_bytes 413 (by its Content-Length, or while it is read),
//     bytes that are not HTTP 400, and so is a header folded over two lines (obs-fold).
//   - A whole head passes the Host check (host_policy.h): one Host, required in HTTP/1.1, a name
//     this front serves; else 400 or 421 (RFC 9112 §3.2, RFC 9110 §7.4).
//   - The deadlines that bound a slow client (slowloris): a new connection's first head (and its
//     TLS handshake) within the header timeout of the connection's start; a kept-alive
//     connection's next request within the read timeout of the last answer; a head within the
//     header timeout of its first bytes; a body within the read timeout of its request's start.
// A refusal is answered and the connection closed (HttpConnection::refuse). One request at a time,
// on the connection's io thread.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "broker_plugin/http/server/connection_settings.h"
#include "broker_plugin/http/transport/exchange.h"
#include "common/base/result.h"

namespace fleetmcp::http {

class RequestHead {
 public:
  using Clock = std::chrono::steady_clock;
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;
  enum class Progress { kNeedMore, kWhole };

  explicit RequestHead(const ConnectionSettings& settings) : settings_(settings) {}

  // The connection has started: when its TLS handshake and first head are due.
  Clock::time_point connection_started(Clock::time_point now);
  // A new request: a fresh parser with the limits. When it is due: nothing for the connection's
  // first request (connection_started() said), the read timeout from now for a later one.
  std::optional<Clock::time_point> next_request();
  // Parses what `buffer` holds and consumes what was used: more bytes needed, a whole head that
  // passed the Host check, or the refusal.
  Result<Progress, HttpReply> parse(boost::beast::flat_buffer& buffer);
  // More bytes are needed: the first time for this head, when the rest is due (header timeout).
  std::optional<Clock::time_point> partial();
  // When the body is due (read timeout from the request's start).
  Clock::time_point body_due() const { return started_ + settings_.read_timeout; }
  // What a body read that failed with `ec` is answered with (413, a bad chunk's 400), or nothing
  // (the client went away, a timeout, a reset: the connection just closes).
  static std::optional<HttpReply> body_refusal(const boost::beast::error_code& ec);

  // Of a whole head: its body is still to be read and over 16 KiB or chunked (the front screens
  // such a head, ConnectionSettings::screen), its Authorization header, keep-alive.
  bool large_body() const;
  std::optional<std::string_view> authorization() const { return authorization_; }
  bool keep_alive() const { return parser_->get().keep_alive(); }
  // The request as the front sees it: method, target and headers, and its body (moved out of
  // the parser) when `with_body`.
  HttpRequest request(bool with_body);
  Parser& parser() { return *parser_; }

 private:
  // Host (a refusal, or nothing), and the Authorization header kept for authorization().
  std::optional<HttpReply> check_fields();

  const ConnectionSettings& settings_;
  std::optional<Parser> parser_;
  Clock::time_point started_;        // when the connection began to wait for this request
  bool first_ = true;                // no request has begun yet
  bool partial_ = false;             // part of this head has arrived
  std::optional<std::string_view> authorization_;  // in the parser's head
  std::string accepted_host_;        // the Host of the last request HostPolicy allowed
};

}  // namespace fleetmcp::http
