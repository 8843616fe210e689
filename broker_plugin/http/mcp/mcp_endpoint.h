// /mcp, the MCP Streamable HTTP transport, revisions 2025-03-26, 2025-06-18, 2025-11-25 (sessions)
// and 2026-07-28 (stateless), chosen per POST by the request itself (stateless_request.h):
//   POST    2026-07-28: one request whose params._meta names its revision; checked against its
//           headers, answered without a session (none is created). 2025: one JSON-RPC message
//           (a batch only in a 2025-03-26 session). initialize creates a
//           session and negotiates the revision; everything else needs Mcp-Session-Id (missing:
//           400, unknown or another agent's: 404); a 2026-07-28 subscriptions/listen is answered
//           with an SSE stream of the changes it asks for (listen_streams.h). Notifications and
//           responses: 202. Requests:
//           application/json, or text/event-stream for a metrics stream. The client must accept
//           both (406), send JSON (415), and a supported MCP-Protocol-Version if any (400).
//   GET     the session's SSE stream for notifications/tools/list_changed (one per session: 409).
//   DELETE  ends the session (then 404 for it).
// Origin and the bearer token are checked before (front_router.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/base/front_metrics.h"
#include "broker_plugin/http/base/front_options.h"
#include "broker_plugin/http/mcp/elicitation.h"
#include "broker_plugin/http/stateless/listen_streams.h"
#include "broker_plugin/http/mcp/mcp_get_stream.h"
#include "broker_plugin/http/mcp/mcp_methods.h"
#include "broker_plugin/http/mcp/mcp_session.h"
#include "broker_plugin/http/streams/open_streams.h"

namespace fleetmcp::http {

class McpEndpoint {
 public:
  // Everything is owned by the front (FrontHandler) or a unit test and outlives every exchange.
  // `wall_ms`: Unix milliseconds (session activity, stream token re-checks).
  McpEndpoint(const FrontOptions& options, McpMethods& methods, McpSessions& sessions, Elicitations& elicitations,
              OpenStreams& streams, ListenStreams& listens, FrontMetrics& metrics, std::function<int64_t()> wall_ms)
      : options_(options), methods_(methods), sessions_(sessions), elicitations_(elicitations), streams_(streams),
        listens_(listens), metrics_(metrics), wall_ms_(std::move(wall_ms)) {}

  void handle(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent);

 private:
  void post(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent);
  void get(const std::shared_ptr<Exchange>& exchange, const AgentToken& agent);
  void remove(const std::shared_ptr<Exchange>& exchange, const AgentToken& agent);

  void stateless(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent, const RpcMessage& m);
  // subscriptions/listen: the stream, under the same quota as a GET stream.
  void listen(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent, const RpcMessage& m);
  // The SSE stream of `session` under the stream quota, or nullptr after answering 429 (409);
  // `farewell` as McpGetStream::open says.
  std::shared_ptr<McpGetStream> open_stream(Exchange& exchange, const AgentToken& agent,
                                            const std::shared_ptr<McpSession>& session, std::string farewell = {});
  void initialize(const std::shared_ptr<Exchange>& exchange, const AgentToken& agent, const RpcMessage& m);
  void single(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent,
              const std::shared_ptr<McpSession>& session, const json::Value& message, const RpcMessage& m);
  void batch(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent,
             const std::shared_ptr<McpSession>& session, const json::Value& messages);
  // The request's session, or nullptr after answering 400/404.
  std::shared_ptr<McpSession> session_for(Exchange& exchange, const AgentToken& agent);

  const FrontOptions& options_;
  McpMethods& methods_;
  McpSessions& sessions_;
  Elicitations& elicitations_;
  OpenStreams& streams_;
  ListenStreams& listens_;
  FrontMetrics& metrics_;
  std::function<int64_t()> wall_ms_;
};

}  // namespace fleetmcp::http
