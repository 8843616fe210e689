// One HTTP request/response as the front's endpoints see it, free of any HTTP library: the Beast
// server (server/http_server.cc) implements these over sockets on io threads, the unit tests in memory.
// Endpoints answer with respond() or turn the response into a Server-Sent Events stream.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/base/result.h"
#include "common/crypto/agent_token.h"

namespace fleetmcp::http {

using Header = std::pair<std::string, std::string>;

// Why a request's credentials were refused (auth/bearer_auth.h).
struct AuthProblem {
  bool token_present = false;  // false: no credentials at all (RFC 6750 §3.1: no error code)
  std::string description;     // ASCII, says what is wrong without echoing the token
};

// The verdict on a request's Authorization header: the agent of a valid bearer token, or why not.
using Authentication = Result<SharedAgentToken, AuthProblem>;

struct HttpRequest {
  std::string method;  // "POST"
  std::string target;  // "/schemas/x@1.0.0?range=..." as received
  std::vector<Header> headers;
  std::string body;
  // The verdict on the bearer token, when the server already took it for this request
  // (ConnectionSettings::authenticate, screen): the front uses it instead of checking the token
  // again. Empty: nobody asked yet.
  std::optional<Authentication> authentication;

  // Header names compare case-insensitively; a repeated header yields its first value.
  std::optional<std::string_view> header(std::string_view name) const;
  std::string_view path() const;   // target up to '?'
  std::string_view query() const;  // after '?', or ""
  // A percent-decoded query parameter ('+' is a space).
  std::optional<std::string> query_param(std::string_view name) const;
};

struct HttpReply {
  int status = 200;
  std::vector<Header> headers;
  std::string body;

  static HttpReply json(int status, std::string body);
  static HttpReply empty(int status);
  HttpReply& with(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
    return *this;
  }
};

// Cancels on destruction: the callback never runs after the Timer is gone.
class Timer {
 public:
  virtual ~Timer() = default;
};

// Where an exchange's work runs. Everything posted to one Scheduler runs one at a time (in
// production an io_context with one thread: asio_scheduler.h), so the endpoints' per-exchange
// state needs no locks.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual void post(std::function<void()> fn) = 0;
  virtual std::unique_ptr<Timer> after(std::chrono::milliseconds delay, std::function<void()> fn) = 0;
};

// Why a stream ended on its own (finish() ends it deliberately and reports nothing).
enum class StreamEnd {
  kPeerClosed,  // the client closed its side or the connection broke
  kOverflow,    // more counted frames unacknowledged than the limit allows (RFC-0009 §6)
  kIdle,        // no read progress by the client for idle_timeout (RFC-0009 §7, 4408)
  kShutdown,    // the server is stopping
};

struct StreamLimits {
  // Counted frames the client may be behind: written but not yet acknowledged at TCP level, plus
  // queued. One more is an overflow.
  size_t max_backlog_frames = 64;
  std::chrono::milliseconds idle_timeout{0};  // 0 = never
};

class EventStream {
 public:
  virtual ~EventStream() = default;
  // Queues SSE text (see sse_event.h). Counted frames are the ones max_backlog_frames limits.
  virtual void send(std::string text, bool counted) = 0;
  // Drops whatever is still unsent, writes `last` if not empty, then closes the connection.
  virtual void finish(std::string last = {}) = 0;
  // Runs once, on the exchange's scheduler, when the stream ends other than through finish().
  // The handler decides what to write last (it may call finish()). The stream holds the handler
  // until it has run or finish() was called, then drops it: a handler may own its session.
  virtual void on_end(std::function<void(StreamEnd)> handler) = 0;
};

class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual const HttpRequest& request() const = 0;
  // Shared, so work posted to it stays valid after the exchange is gone.
  virtual std::shared_ptr<Scheduler> scheduler() = 0;
  // Exactly one of respond() or open_stream(), once, from the exchange's scheduler.
  virtual void respond(HttpReply reply) = 0;
  // Closes the connection without answering: the request was cancelled (MCP
  // notifications/cancelled: the spec says no response is sent).
  virtual void abandon() = 0;
  // Sends a 200 text/event-stream header with `headers` added and returns the stream.
  virtual std::shared_ptr<EventStream> open_stream(std::vector<Header> headers, StreamLimits limits) = 0;
  // MCP 2026-07-28 cancels a request by closing its response (docs/http-front.md, "Revisions"):
  // `handler` runs once, on the scheduler, when the client closes the connection (or it breaks)
  // before the request is answered, and never after respond() or abandon(). Asked at most once,
  // by a request that answers with respond() or abandon(), not open_stream(). Where the client's
  // next bytes are already read (a pipelined request), nothing is watched.
  virtual void on_peer_closed(std::function<void()> handler) = 0;
};

}  // namespace fleetmcp::http
