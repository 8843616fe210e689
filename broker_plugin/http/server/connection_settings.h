// What every connection of the Beast server (http_server.h, http_connection.h) is told: the
// handler that gets each request as an Exchange, the limits on a request (request_head.h), the
// timeouts, TLS, and the front's two looks at a request before its body is read.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "broker_plugin/http/transport/connection_limit.h"
#include "broker_plugin/http/transport/exchange.h"
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
  std::shared_ptr<ConnectionLimit> connections;  // null: no cap (unit tests)
  std::shared_ptr<const HostPolicy> hosts;       // null: any Host (unit tests)
  // Checks the bearer token of an Authorization header (the front's BearerAuth). Asked only for
  // the tenant the connection limit needs (ConnectionLimit::Ticket), on a connection's requests
  // until one has a valid token; the verdict then travels with the request
  // (HttpRequest::authentication), so the screen and the handler do not check the token again.
  // Null: never asked (the tenant is "").
  std::function<Authentication(std::optional<std::string_view> authorization)> authenticate;
  // Looks at the start line and headers of a request with a body over 16 KiB (or chunked)
  // before that body is read: a reply refuses the request there (no token: 401) and the body is
  // never read. It may leave its own verdict on the token in head.authentication for the
  // handler. Null: every body is read.
  std::function<std::optional<HttpReply>(HttpRequest& head)> screen;
};

}  // namespace fleetmcp::http
