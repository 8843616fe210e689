// The two ways an agent calls a tool over HTTP, as the load generator speaks them:
//   rfc0009  POST /mcp/tools/call  {"tool": NAME, "arguments": {...}}          (RFC-0009 §3)
//   mcp      POST /mcp  tools/call in an MCP session (initialize first), revision 2025-06-18
//   mcp2026  POST /mcp  tools/call at revision 2026-07-28: no session, the version and client
//            capabilities in each request's params._meta, MCP-Protocol-Version, Mcp-Method and
//            Mcp-Name headers (docs/http-front.md, "Revisions")
// Builds the requests (unary calls and metrics streams) and says whether a reply is a success,
// or else what kind of failure it is, for LatencyRecord.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bench/http_load/keepalive_connection.h"

namespace fleetmcp::bench {

enum class CallApi { kRfc0009, kMcp, kMcp2026 };

std::optional<CallApi> call_api_named(std::string_view name);  // "rfc0009" | "mcp" | "mcp2026"
std::string_view call_api_name(CallApi api);

class ToolCallApi {
 public:
  static constexpr std::string_view kMcpRevision = "2025-06-18";
  static constexpr std::string_view kStatelessRevision = "2026-07-28";

  // `session_id` is the MCP session (open_mcp_session); empty for rfc0009.
  ToolCallApi(CallApi api, std::string host, std::string token, std::string session_id);

  CallApi api() const { return api_; }
  // A unary call of `tool` with `arguments_json` (an object).
  std::shared_ptr<const HttpRequestMessage> call(std::string_view tool, std::string_view arguments_json);
  // A metrics subscribe answered with an SSE stream (with a progress token on MCP).
  std::shared_ptr<const HttpRequestMessage> stream(std::string_view tool, int interval_ms);

  // Empty for a successful unary call; otherwise "http 504 E_DEADLINE_EXCEEDED",
  // "isError E_RATE_LIMITED", "rpc -32602", "http 200 unreadable"...
  std::string failure_of(const HttpReplyMessage& reply) const;

 private:
  // `tool` names the call in Mcp-Name (2026-07-28).
  std::shared_ptr<HttpRequestMessage> post(std::string_view target, std::string body, std::string_view accept,
                                           std::string_view tool) const;
  std::string rpc_body(std::string_view tool, std::string_view arguments_json, bool progress);
  static std::string rfc0009_body(std::string_view tool, std::string_view arguments_json);

  CallApi api_;
  std::string host_, authorization_, session_id_;
  uint64_t next_id_ = 1;
};

// The MCP handshake over its own blocking connection: initialize, then notifications/initialized.
// Returns the Mcp-Session-Id. Throws fleetmcp::Error when the server refuses.
std::string open_mcp_session(const boost::asio::ip::tcp::endpoint& server, const std::string& token);

}  // namespace fleetmcp::bench
