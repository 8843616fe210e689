// /mcp, the MCP Streamable HTTP transport (revisions 2025-03-26, 2025-06-18, 2025-11-25):
//   POST    one JSON-RPC message (a batch only in a 2025-03-26 session). initialize creates a
//           session and negotiates the revision; everything else needs Mcp-Session-Id (missing:
//           400, unknown or another agent's: 404). Notifications and responses: 202. Requests:
//           application/json, or text/event-stream for a metrics stream. The client must accept
//           both (406), send JSON (415), and a supported MCP-Protocol-Version if any (400).
//   GET     the session's SSE stream for notifications/tools/list_changed (one per session: 409).
//   DELETE  ends the session (then 404 for it).
// Origin and the bearer token are checked before (front_router.h).
#pragma once

#include <memory>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/mcp/mcp_methods.h"

namespace fleetmcp::http {

class McpEndpoint {
 public:
  explicit McpEndpoint(FrontServices& services) : s_(services), methods_(services) {}

  void handle(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent);

 private:
  void post(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent);
  void get(const std::shared_ptr<Exchange>& exchange, const AgentToken& agent);
  void remove(const std::shared_ptr<Exchange>& exchange, const AgentToken& agent);

  void initialize(const std::shared_ptr<Exchange>& exchange, const AgentToken& agent, const RpcMessage& m);
  void single(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent,
              const std::shared_ptr<McpSession>& session, const json::Value& message, const RpcMessage& m);
  void batch(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent,
             const std::shared_ptr<McpSession>& session, const json::Value& messages);
  // The request's session, or nullptr after answering 400/404.
  std::shared_ptr<McpSession> session_for(Exchange& exchange, const AgentToken& agent);

  FrontServices& s_;
  McpMethods methods_;
};

}  // namespace fleetmcp::http
