#include "broker_plugin/http/front/front_options.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "common/base/error.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kPrefix = "http_";

[[noreturn]] void fail(std::string_view key, std::string_view what, std::string_view fix) {
  throw Error(ErrorCode::kBadRequest, "plugin_opt_" + std::string(key) + ": " + std::string(what), fix);
}

int64_t integer(std::string_view key, const std::string& value, int64_t min, int64_t max) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v < min || v > max) {
    fail(key, "'" + value + "' is not an integer from " + std::to_string(min) + " to " + std::to_string(max),
         "write a whole number in that range");
  }
  return v;
}

size_t count(std::string_view key, const std::string& value, int64_t min, int64_t max) {
  return static_cast<size_t>(integer(key, value, min, max));
}

std::chrono::milliseconds millis(std::string_view key, const std::string& value, int64_t min, int64_t max) {
  return std::chrono::milliseconds(integer(key, value, min, max));
}

std::vector<std::string> words(const std::string& value) {
  std::vector<std::string> out;
  std::istringstream in(value);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "host:port", "[v6]:port", ":port", or "off".
void listen_address(FrontOptions& o, std::string_view key, const std::string& value) {
  if (value == "off") {
    o.enabled = false;
    return;
  }
  const size_t colon = value.rfind(':');
  if (colon == std::string::npos) fail(key, "'" + value + "' is not host:port", "for example 127.0.0.1:8080");
  std::string host = value.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  o.listen_host = host.empty() ? "127.0.0.1" : host;
  o.listen_port = static_cast<uint16_t>(integer(key, value.substr(colon + 1), 0, 65535));
}

std::string readable(std::string_view key, const std::string& path) {
  if (!std::ifstream(path).good()) fail(key, "cannot read " + path, "check the path and that the broker's user may read it");
  return path;
}

using Setter = std::function<void(FrontOptions&, const std::string& key, const std::string& value)>;

const std::map<std::string, Setter, std::less<>>& setters() {
  static const std::map<std::string, Setter, std::less<>> table{
      {"http_listen", [](auto& o, auto& k, auto& v) { listen_address(o, k, v); }},
      {"http_tls_cert", [](auto& o, auto& k, auto& v) { o.tls_cert = readable(k, v); }},
      {"http_tls_key", [](auto& o, auto& k, auto& v) { o.tls_key = readable(k, v); }},
      {"http_threads", [](auto& o, auto& k, auto& v) { o.io_threads = static_cast<int>(integer(k, v, 1, 64)); }},
      {"http_tool_names", [](auto& o, auto& k, auto& v) {
         if (v != "dotted" && v != "dashed") fail(k, "must be dotted or dashed", "dashed suits clients that reject dots");
         o.tool_names = v == "dotted" ? ToolNameStyle::kDotted : ToolNameStyle::kDashed;
       }},
      {"http_tools_mode", [](auto& o, auto& k, auto& v) {
         if (v == "by_kind") o.tools_mode = ToolsMode::kByKind;
         else if (v == "per_node") o.tools_mode = ToolsMode::kPerNode;
         else if (v == "compact") o.tools_mode = ToolsMode::kCompact;
         else fail(k, "must be by_kind, per_node or compact", "by_kind suits every fleet size");
       }},
      {"http_page_size", [](auto& o, auto& k, auto& v) { o.page_size = static_cast<size_t>(integer(k, v, 1, 1000)); }},
      {"http_resource_url", [](auto& o, auto&, auto& v) { o.resource_url = v; }},
      {"http_authorization_servers", [](auto& o, auto&, auto& v) { o.authorization_servers = words(v); }},
      {"http_token_audience", [](auto& o, auto& k, auto& v) {
         if (v.empty()) fail(k, "is empty", "write the aud your agent tokens carry");
         o.token_audience = v;
       }},
      {"http_issuer_public_key", [](auto& o, auto& k, auto& v) { o.issuer_public_key = readable(k, v); }},
      {"http_allowed_origins", [](auto& o, auto&, auto& v) { o.allowed_origins = words(v); }},
      {"http_allowed_hosts", [](auto& o, auto&, auto& v) { o.allowed_hosts = words(v); }},
      {"http_max_body_bytes", [](auto& o, auto& k, auto& v) {
         o.max_body_bytes = static_cast<size_t>(integer(k, v, 1024, 64 << 20));
       }},
      {"http_max_connections", [](auto& o, auto& k, auto& v) { o.max_connections = count(k, v, 1, 1'000'000); }},
      {"http_max_connections_per_address", [](auto& o, auto& k, auto& v) {
         o.max_connections_per_address = count(k, v, 1, 1'000'000);
       }},
      {"http_max_connections_per_prefix", [](auto& o, auto& k, auto& v) {
         o.max_connections_per_prefix = count(k, v, 1, 1'000'000);
       }},
      {"http_reserved_connections", [](auto& o, auto& k, auto& v) { o.reserved_connections = count(k, v, 0, 1'000'000); }},
      {"http_max_connections_per_tenant", [](auto& o, auto& k, auto& v) {
         o.max_connections_per_tenant = count(k, v, 1, 1'000'000);
       }},
      {"http_max_sessions", [](auto& o, auto& k, auto& v) { o.max_sessions = static_cast<size_t>(integer(k, v, 1, 10'000'000)); }},
      {"http_max_sessions_per_caller", [](auto& o, auto& k, auto& v) { o.max_sessions_per_caller = count(k, v, 1, 10'000'000); }},
      {"http_max_sessions_per_tenant", [](auto& o, auto& k, auto& v) { o.max_sessions_per_tenant = count(k, v, 1, 10'000'000); }},
      {"http_max_streams_per_caller", [](auto& o, auto& k, auto& v) { o.max_streams_per_caller = count(k, v, 1, 1'000'000); }},
      {"http_max_streams_per_tenant", [](auto& o, auto& k, auto& v) { o.max_streams_per_tenant = count(k, v, 1, 1'000'000); }},
      {"http_max_stream_ms", [](auto& o, auto& k, auto& v) { o.max_stream = millis(k, v, 1000, 7 * 86'400'000LL); }},
      {"http_max_batch", [](auto& o, auto& k, auto& v) { o.max_batch = count(k, v, 1, 10'000); }},
      {"http_max_commit_tokens_per_caller", [](auto& o, auto& k, auto& v) {
         o.max_commit_tokens_per_caller = count(k, v, 1, 10'000);
       }},
      {"http_audit_refusal_interval_ms", [](auto& o, auto& k, auto& v) { o.audit_refusal_interval = millis(k, v, 0, 3'600'000); }},
      {"http_read_timeout_ms", [](auto& o, auto& k, auto& v) { o.read_timeout = millis(k, v, 100, 3'600'000); }},
      {"http_header_timeout_ms", [](auto& o, auto& k, auto& v) { o.header_timeout = millis(k, v, 100, 3'600'000); }},
      {"http_max_header_bytes", [](auto& o, auto& k, auto& v) { o.max_header_bytes = count(k, v, 1024, 64 * 1024); }},
      {"http_session_idle_ms", [](auto& o, auto& k, auto& v) { o.session_idle = millis(k, v, 1000, 86'400'000); }},
      {"http_sse_ping_ms", [](auto& o, auto& k, auto& v) { o.sse_ping = millis(k, v, 100, 3'600'000); }},
      {"http_sse_idle_timeout_ms", [](auto& o, auto& k, auto& v) { o.sse_idle_timeout = millis(k, v, 100, 3'600'000); }},
      {"http_sse_buffer_frames", [](auto& o, auto& k, auto& v) { o.sse_buffer_frames = static_cast<size_t>(integer(k, v, 1, 1000)); }},
      {"http_mcp_keepalive_ms", [](auto& o, auto& k, auto& v) { o.mcp_keepalive = millis(k, v, 100, 3'600'000); }},
      {"http_mcp_max_stream_ms", [](auto& o, auto& k, auto& v) { o.mcp_max_stream = millis(k, v, 100, 86'400'000); }},
      {"http_mcp_stream_buffer", [](auto& o, auto& k, auto& v) { o.mcp_stream_buffer = static_cast<size_t>(integer(k, v, 1, 100000)); }},
      {"http_lease_renew_ms", [](auto& o, auto& k, auto& v) { o.lease_renew = millis(k, v, 100, 29'000); }},
      {"http_audit_log", [](auto& o, auto&, auto& v) { o.audit_log = v; }},
  };
  return table;
}

}  // namespace

FrontOptions parse_front_options(const FrontOptionList& options) {
  FrontOptions parsed;
  std::set<std::string, std::less<>> seen;
  for (const auto& [key, value] : options) {
    if (!key.starts_with(kPrefix)) continue;
    const auto setter = setters().find(key);
    if (setter == setters().end()) fail(key, "unknown option", "see docs/http-front.md for the http_ options");
    if (!seen.insert(key).second) fail(key, "given twice", "keep one plugin_opt_" + key + " line");
    setter->second(parsed, key, value);
  }
  // Shares of the connection cap, a quarter each unless given (docs/http-front.md "Limits and quotas").
  if (!seen.contains("http_reserved_connections")) parsed.reserved_connections = parsed.max_connections / 4;
  if (!seen.contains("http_max_connections_per_tenant")) {
    parsed.max_connections_per_tenant = std::max<size_t>(1, parsed.max_connections / 4);
  }
  if (parsed.reserved_connections >= parsed.max_connections) {
    fail("http_reserved_connections", "must be less than plugin_opt_http_max_connections",
         "keep some connections for requests without a token (/healthz, /metrics, the first request of a client)");
  }
  if (parsed.tls_cert.empty() != parsed.tls_key.empty()) {
    fail(parsed.tls_cert.empty() ? "http_tls_cert" : "http_tls_key", "is missing",
         "TLS needs both plugin_opt_http_tls_cert and plugin_opt_http_tls_key");
  }
  return parsed;
}

std::string resource_url(const FrontOptions& options, uint16_t bound_port) {
  if (!options.resource_url.empty()) return options.resource_url;
  const bool v6 = options.listen_host.find(':') != std::string::npos;
  const std::string host = v6 ? "[" + options.listen_host + "]" : options.listen_host;
  return (options.tls_cert.empty() ? "http://" : "https://") + host + ":" + std::to_string(bound_port) + "/mcp";
}

}  // namespace fleetmcp::http
