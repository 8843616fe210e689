// The HTTP front's configuration: the plugin_opt_http_* lines of mosquitto.conf (docs/protocol.md §6), the
// same key = value pairs the plugin's own options come in. docs/http-front.md lists them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "broker_plugin/http/auth/trusted_issuer.h"
#include "common/base/options.h"

namespace fleetmcp::http {

enum class ToolNameStyle { kDotted, kDashed };  // docs/protocol.md D9
// per_node: the RFC-0001 projection, one tool per node capability verb; compact: three untyped
// fleet tools; by_kind (the default): one typed tool per (kind, verb), see kind_tools.h.
enum class ToolsMode { kPerNode, kCompact, kByKind };

struct FrontOptions {
  bool enabled = true;                     // http_listen off: the plugin runs without a front
  std::string listen_host = "127.0.0.1";  // loopback unless told otherwise
  uint16_t listen_port = 8080;             // 0 = any free port (tests)
  int io_threads = 2;
  // TLS on the listener (PEM files); both or neither. Without them the front speaks plain HTTP.
  std::string tls_cert, tls_key;

  ToolNameStyle tool_names = ToolNameStyle::kDotted;
  ToolsMode tools_mode = ToolsMode::kByKind;
  size_t page_size = 100;

  // OAuth protected resource (RFC 9728). resource_url defaults to http://<listen>/mcp.
  std::string resource_url;
  std::vector<std::string> authorization_servers;
  // External authorization servers whose JWT access tokens are accepted (docs/authorization.md).
  std::vector<TrustedIssuer> trusted_issuers;
  std::string token_audience = "fleetmcp";
  std::string issuer_public_key;  // PEM file; the plugin passes its own when this is empty
  // Origins allowed besides loopback ones (http(s)://localhost|127.0.0.1|[::1][:port]).
  std::vector<std::string> allowed_origins;
  // Host header names accepted besides localhost, 127.0.0.1, [::1], the listen address and the
  // resource URL's host (host_policy.h): the names clients reach the front by.
  std::vector<std::string> allowed_hosts;

  // Limits and quotas (issue 17; docs/http-front.md "Limits and quotas").
  size_t max_body_bytes = 1024 * 1024;  // the JSON parser's own limit (common/base/json.h)
  size_t max_connections = 512;         // the front shares the broker's descriptor limit
  size_t max_connections_per_address = 64;
  size_t max_connections_per_prefix = 128;  // IPv4 /24, IPv6 /64 (connection_limit.h)
  // Connections only requests with a valid token may use, and connections one tenant's tokens may
  // hold; both max_connections / 4 unless given.
  size_t reserved_connections = 128;
  size_t max_connections_per_tenant = 128;
  size_t max_sessions = 10000;
  size_t max_sessions_per_caller = 32;   // per token sub within its tenant; then its oldest goes
  size_t max_sessions_per_tenant = 1000;
  std::chrono::milliseconds session_idle{std::chrono::hours(1)};
  size_t max_streams_per_caller = 16;    // RFC-0009 and MCP GET streams open at once
  size_t max_streams_per_tenant = 256;
  std::chrono::milliseconds max_stream{std::chrono::hours(1)};  // RFC-0009 and GET stream lifetime
  size_t max_batch = 32;                 // messages in a 2025-03-26 JSON-RPC batch
  size_t max_commit_tokens_per_caller = 16;  // outstanding two-phase tokens; then its oldest goes
  std::chrono::milliseconds audit_refusal_interval{1000};  // one refusal line per key and interval
  // A connection that sends no whole request (or TLS handshake) within it is closed: idle
  // keep-alive and slow clients. A request being handled or a stream is never cut by it.
  std::chrono::milliseconds read_timeout{60000};
  // A request head must be whole within it of its first byte, and a new connection's first head
  // (with its TLS handshake) within it of the connection's start: a client trickling its head
  // (slowloris) holds a connection this long, not the read timeout.
  std::chrono::milliseconds header_timeout{5000};
  size_t max_header_bytes = 8192;  // a larger request head is answered 431

  // RFC-0009 stream timers (options so the §9 fixtures run in seconds in tests).
  std::chrono::milliseconds sse_ping{25000};
  std::chrono::milliseconds sse_idle_timeout{90000};
  size_t sse_buffer_frames = 3;
  // MCP streams: keep-alive comments on the GET stream, and the longest metrics.subscribe call.
  std::chrono::milliseconds mcp_keepalive{25000};
  std::chrono::milliseconds mcp_max_stream{std::chrono::minutes(5)};
  size_t mcp_stream_buffer = 64;  // messages queued for a slow MCP client before the stream is cut

  std::chrono::milliseconds lease_renew{10000};  // below the device's 30 s telemetry lease
  std::chrono::milliseconds commit_token_ttl{30000};  // docs/protocol.md §7
  // The 32-byte key that MACs 2026-07-28 request states (stateless/request_state.h), read from
  // http_request_state_key_file (64 hex digits). Empty: the front makes a random one at start,
  // which suits a single front; fronts behind one balancer share a file so any of them opens a
  // state another sealed (docs/http-front.md, "Behind a load balancer").
  std::string request_state_key;
  std::string audit_log = "-";  // "-" = stderr, "" = off, else a file appended to
};

// Option pairs as mosquitto hands them over (keys without "plugin_opt_").
using FrontOptionList = std::vector<std::pair<std::string, std::string>>;
// The pairs as an OptionSet without positions (tests; plugin_entry.cc adds the lines of mosquitto.conf).
inline OptionSet front_option_set(const FrontOptionList& pairs) { return OptionSet::from_pairs("plugin_opt_", pairs); }

// Reads the keys that start with "http_" (the "plugin_opt_" prefix already removed) and ignores
// the others. A kBadRequest "[<file>:<line>: ]plugin_opt_http_<key>: <what is wrong>" otherwise.
Result<FrontOptions> parse_front_options(const OptionSet& options);

// "http://127.0.0.1:8080/mcp" (https with TLS) unless resource_url says otherwise.
std::string resource_url(const FrontOptions& options, uint16_t bound_port);

}  // namespace fleetmcp::http
