#include "broker_plugin/http/base/front_options.h"

#include <algorithm>

#include "common/base/bytes.h"
#include "common/base/file_text.h"
#include "common/base/text.h"

namespace fleetmcp::http {
namespace {

using Rule = OptionRule<FrontOptions>;

// "host:port", "[v6]:port", ":port", or "off".
Status listen_address(FrontOptions& o, const Option& v) {
  if (v.value == "off") {
    o.enabled = false;
    return {};
  }
  const size_t colon = v.value.rfind(':');
  if (colon == std::string::npos) return v.error("'" + v.value + "' is not host:port", "for example 127.0.0.1:8080");
  std::string host = v.value.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  o.listen_host = host.empty() ? "127.0.0.1" : host;
  Option port = v;
  port.value = v.value.substr(colon + 1);
  return assign(o.listen_port, port.integer(0, 65535));
}

// A count from min to max, for a size_t field.
template <size_t FrontOptions::*field, int64_t min, int64_t max>
Status count(FrontOptions& o, const Option& v) {
  return assign(o.*field, v.integer(min, max));
}

template <std::chrono::milliseconds FrontOptions::*field, int64_t min, int64_t max>
Status millis(FrontOptions& o, const Option& v) {
  return assign(o.*field, v.millis(min, max));
}

template <std::vector<std::string> FrontOptions::*field>
Status words(FrontOptions& o, const Option& v) {
  o.*field = v.words();
  return {};
}

template <std::string FrontOptions::*field>
Status readable(FrontOptions& o, const Option& v) {
  return assign(o.*field, v.readable_file());
}

template <std::string FrontOptions::*field>
Status text(FrontOptions& o, const Option& v) {
  o.*field = v.value;
  return {};
}

// The request-state key: a file holding 64 hex digits (`openssl rand -hex 32`), surrounding
// whitespace ignored, shared by the fronts behind one balancer.
Status request_state_key(FrontOptions& o, const Option& v) {
  const auto text = read_file(v.value, ErrorCode::kBadRequest, "the request-state key");
  if (!text) return v.error(text.error().message, "point it at a file made with: openssl rand -hex 32 > FILE");
  const auto key = hex_decode(trim(*text));
  if (!key || key->size() != 32) {
    return v.error("the file does not hold 64 hex digits (a 32-byte key)", "make it with: openssl rand -hex 32 > FILE");
  }
  o.request_state_key.assign(key->begin(), key->end());
  return {};
}

using FO = FrontOptions;
constexpr int64_t kHour = 3'600'000, kDay = 86'400'000;

// docs/http-front.md's table of plugin_opt_http_* options.
constexpr Rule kRules[] = {
    {"http_listen", listen_address},
    {"http_tls_cert", readable<&FO::tls_cert>},
    {"http_tls_key", readable<&FO::tls_key>},
    {"http_threads", [](FO& o, const Option& v) { return assign(o.io_threads, v.integer(1, 64)); }},
    {"http_tool_names", [](FO& o, const Option& v) {
       return assign(o.tool_names, v.one_of<ToolNameStyle>({{"dotted", ToolNameStyle::kDotted}, {"dashed", ToolNameStyle::kDashed}},
                                                           "dashed suits clients that reject dots"));
     }},
    {"http_tools_mode", [](FO& o, const Option& v) {
       return assign(o.tools_mode, v.one_of<ToolsMode>({{"by_kind", ToolsMode::kByKind}, {"per_node", ToolsMode::kPerNode},
                                                        {"compact", ToolsMode::kCompact}},
                                                       "by_kind suits every fleet size"));
     }},
    {"http_page_size", count<&FO::page_size, 1, 1000>},
    {"http_resource_url", text<&FO::resource_url>},
    {"http_authorization_servers", words<&FO::authorization_servers>},
    {"http_token_audience", [](FO& o, const Option& v) {
       return assign(o.token_audience, v.text("write the aud your agent tokens carry"));
     }},
    {"http_issuer_public_key", readable<&FO::issuer_public_key>},
    {"http_allowed_origins", words<&FO::allowed_origins>},
    {"http_allowed_hosts", words<&FO::allowed_hosts>},
    {"http_max_body_bytes", count<&FO::max_body_bytes, 1024, 64 << 20>},
    {"http_max_connections", count<&FO::max_connections, 1, 1'000'000>},
    {"http_max_connections_per_address", count<&FO::max_connections_per_address, 1, 1'000'000>},
    {"http_max_connections_per_prefix", count<&FO::max_connections_per_prefix, 1, 1'000'000>},
    {"http_reserved_connections", count<&FO::reserved_connections, 0, 1'000'000>},
    {"http_max_connections_per_tenant", count<&FO::max_connections_per_tenant, 1, 1'000'000>},
    {"http_max_sessions", count<&FO::max_sessions, 1, 10'000'000>},
    {"http_max_sessions_per_caller", count<&FO::max_sessions_per_caller, 1, 10'000'000>},
    {"http_max_sessions_per_tenant", count<&FO::max_sessions_per_tenant, 1, 10'000'000>},
    {"http_max_streams_per_caller", count<&FO::max_streams_per_caller, 1, 1'000'000>},
    {"http_max_streams_per_tenant", count<&FO::max_streams_per_tenant, 1, 1'000'000>},
    {"http_max_stream_ms", millis<&FO::max_stream, 1000, 7 * kDay>},
    {"http_max_batch", count<&FO::max_batch, 1, 10'000>},
    {"http_max_commit_tokens_per_caller", count<&FO::max_commit_tokens_per_caller, 1, 10'000>},
    {"http_audit_refusal_interval_ms", millis<&FO::audit_refusal_interval, 0, kHour>},
    {"http_read_timeout_ms", millis<&FO::read_timeout, 100, kHour>},
    {"http_header_timeout_ms", millis<&FO::header_timeout, 100, kHour>},
    {"http_max_header_bytes", count<&FO::max_header_bytes, 1024, 64 * 1024>},
    {"http_session_idle_ms", millis<&FO::session_idle, 1000, kDay>},
    {"http_sse_ping_ms", millis<&FO::sse_ping, 100, kHour>},
    {"http_sse_idle_timeout_ms", millis<&FO::sse_idle_timeout, 100, kHour>},
    {"http_sse_buffer_frames", count<&FO::sse_buffer_frames, 1, 1000>},
    {"http_mcp_keepalive_ms", millis<&FO::mcp_keepalive, 100, kHour>},
    {"http_mcp_max_stream_ms", millis<&FO::mcp_max_stream, 100, kDay>},
    {"http_mcp_stream_buffer", count<&FO::mcp_stream_buffer, 1, 100000>},
    {"http_request_state_key_file", request_state_key},
    {"http_lease_renew_ms", millis<&FO::lease_renew, 100, 29'000>},
    {"http_audit_log", text<&FO::audit_log>},
};

// The core's options are the core's (broker_plugin/core/plugin_options.h); the trusted issuers'
// are read by parse_trusted_issuers.
bool read_elsewhere(std::string_view key) { return !key.starts_with("http_") || is_trusted_issuer_option(key); }

}  // namespace

Result<FrontOptions> parse_front_options(const OptionSet& options) {
  FrontOptions parsed;
  if (Status read = options.read<FrontOptions>(kRules, parsed, "see docs/http-front.md for the http_ options", read_elsewhere);
      !read) {
    return std::move(read).error();
  }
  if (Status issuers = assign(parsed.trusted_issuers, parse_trusted_issuers(options)); !issuers) return issuers.error();
  // Shares of the connection cap, a quarter each unless given (docs/http-front.md "Limits and quotas").
  if (!options.has("http_reserved_connections")) parsed.reserved_connections = parsed.max_connections / 4;
  if (!options.has("http_max_connections_per_tenant")) {
    parsed.max_connections_per_tenant = std::max<size_t>(1, parsed.max_connections / 4);
  }
  if (parsed.reserved_connections >= parsed.max_connections) {
    return options.error(
        "http_reserved_connections", "must be less than plugin_opt_http_max_connections",
        "keep some connections for requests without a token (/healthz, /metrics, the first request of a client)");
  }
  if (parsed.tls_cert.empty() != parsed.tls_key.empty()) {
    return options.error(parsed.tls_cert.empty() ? "http_tls_cert" : "http_tls_key", "is missing",
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
