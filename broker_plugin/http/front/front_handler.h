// The HTTP front as an application, free of sockets: it owns the shared services (the per_node tools, gate,
// limiter, commit tokens, sessions, fan-out, metrics, audit) and routes each exchange:
//   GET  /healthz                               liveness and the fleet snapshot's generation
//   GET  /metrics                               Prometheus text
//   GET  /.well-known/oauth-protected-resource[/mcp]   RFC 9728 metadata
//   GET  /schemas…                              schema_routes.h
//   *    /mcp                                   Origin (403), bearer token (401), mcp_endpoint.h
//   POST /mcp/tools/call                        Origin (403), bearer token (401), rfc0009_endpoint.h
// HttpFront (http_front.h) runs it behind the Beast server; unit tests call handle() directly.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "broker_plugin/http/auth/bearer_auth.h"
#include "broker_plugin/http/calls/call_audit.h"
#include "broker_plugin/http/calls/call_gate.h"
#include "broker_plugin/http/calls/call_limiter.h"
#include "broker_plugin/http/calls/call_log.h"
#include "broker_plugin/http/calls/call_runner.h"
#include "broker_plugin/http/calls/commit_tokens.h"
#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/base/front_options.h"
#include "broker_plugin/http/surface/compact_tools.h"
#include "broker_plugin/http/surface/kind_tools.h"
#include "broker_plugin/http/surface/per_node_tools.h"
#include "broker_plugin/http/mcp/list_changed.h"
#include "broker_plugin/http/mcp/mcp_endpoint.h"
#include "broker_plugin/http/mcp/mcp_methods.h"
#include "broker_plugin/http/streams/open_streams.h"
#include "broker_plugin/http/front/origin_policy.h"
#include "broker_plugin/http/rfc0009/rfc0009_endpoint.h"
#include "broker_plugin/http/front/schema_routes.h"

namespace fleetmcp::http {

struct FrontConfig {
  FrontOptions options;
  std::shared_ptr<const SchemaRegistry> schemas;
  Ed25519PublicKey issuer{};
  std::string resource_url;                // canonical URI of /mcp
  std::shared_ptr<Scheduler> background;   // lease renewals, session sweeps, change notices
  std::function<int64_t()> wall_ms;        // Unix ms
  std::function<int64_t()> steady_ms;      // monotonic ms
  std::function<void(std::string_view)> log;  // operator messages (an issuer's keys that cannot be fetched)
};

class FrontHandler {
 public:
  FrontHandler(FrontConfig config, FleetView& fleet, CallAudit audit);
  ~FrontHandler();
  FrontHandler(const FrontHandler&) = delete;
  FrontHandler& operator=(const FrontHandler&) = delete;

  void handle(const std::shared_ptr<Exchange>& exchange);
  // The same Origin and token checks as handle(), on a request's headers before its body is read
  // (ConnectionSettings::screen): the refusal, or nothing when the request may go on (the
  // verdict on its token then stays in head.authentication for handle()).
  std::optional<HttpReply> screen(HttpRequest& head);
  // The verdict on the bearer token of an Authorization header (ConnectionSettings::authenticate:
  // the tenant for the connection's share and the reserve, connection_limit.h). Audits nothing:
  // handle() takes the verdict from the request and audits a refusal.
  Authentication authenticate(std::optional<std::string_view> authorization);
  // Ends every MCP session (their streams close); the server closes the rest.
  void shutdown();

  FrontMetrics& metrics() { return metrics_; }
  McpSessions& sessions() { return sessions_; }
  TelemetryFanout& fanout() { return fanout_; }
  const FrontOptions& options() const { return config_.options; }
  const BearerAuth& bearer_auth() const { return auth_; }

 private:
  void authenticated(const std::shared_ptr<Exchange>& exchange, bool mcp);
  // The agent, or the reply refusing it (403 Origin, 401 token), audited.
  Result<SharedAgentToken, HttpReply> caller(const HttpRequest& req, bool mcp);
  // The verdict the server took with the request (HttpRequest::authentication), or, when it has
  // none or the token expired since (a body may take the read timeout), a check now.
  Authentication verdict(const HttpRequest& req);
  void arm_sweep();
  void arm_stream_check();
  // The configured tools mode (tool_surface.h).
  const ToolSurface& surface() const;
  // What notifications/tools/list_changed compares, for the configured tools mode.
  ListChangedNotifier::Digest list_digest() const;

  FrontConfig config_;
  FleetView& fleet_;
  FrontMetrics metrics_;
  CallLog log_;
  PerNodeTools per_node_;
  CompactTools compact_;
  KindTools kinds_;
  Elicitations elicitations_;
  NodeResources resources_;
  CallLimiter limiter_;
  CommitTokens commits_;
  CallGate gate_;
  CallRunner calls_;
  TelemetryFanout fanout_;
  McpSessions sessions_;
  ListenStreams listens_;  // 2026-07-28 subscriptions/listen streams
  std::shared_ptr<OpenStreams> streams_;
  IssuerKeys issuer_keys_;
  ProtectedResource resource_;
  BearerAuth auth_;
  OriginPolicy origins_;
  SchemaRoutes schema_routes_;
  McpMethods mcp_methods_;
  McpEndpoint mcp_;
  Rfc0009Endpoint rfc0009_;
  ListChangedNotifier list_changed_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::unique_ptr<Timer> sweep_, stream_check_;
};

}  // namespace fleetmcp::http
