// The MCP methods the front serves inside a session (a 2026-07-28 request gets a session of its own
// that no table holds, see mcp_endpoint.h): server/discover (2026-07-28), ping, tools/list, tools/call,
// resources/*, prompts/list, prompts/get, completion/complete, logging/setLevel, and the notifications initialized and cancelled (initialize itself creates
// the session, see mcp_endpoint.h). Transport-free: every answer goes to a callback (a metrics
// subscription's samples go to the session's stream, mcp_metrics_stream.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/auth/protected_resource.h"
#include "broker_plugin/http/calls/call_log.h"
#include "broker_plugin/http/calls/call_runner.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/base/front_metrics.h"
#include "broker_plugin/http/base/front_options.h"
#include "broker_plugin/http/mcp/elicitation.h"
#include "broker_plugin/http/mcp/mcp_metrics_stream.h"
#include "broker_plugin/http/mcp/mcp_session.h"
#include "broker_plugin/http/mcp/node_resources.h"
#include "broker_plugin/http/prompts/fleet_prompts.h"
#include "broker_plugin/http/streams/open_streams.h"
#include "broker_plugin/http/streams/telemetry_fanout.h"
#include "broker_plugin/http/surface/compact_tools.h"
#include "broker_plugin/http/surface/tool_surface.h"
#include "broker_plugin/http/base/jsonrpc.h"
#include "broker_plugin/http/stateless/request_state.h"

namespace fleetmcp::http {

struct RpcAnswer {
  int status = 200;
  std::string body;  // one JSON-RPC response object
  std::vector<Header> headers;
};
// nullopt: the request was cancelled and gets no response.
using Answer = std::function<void(std::optional<RpcAnswer>)>;

class McpMethods {
 public:
  // Everything is owned by the front (FrontHandler) or a unit test and outlives every exchange.
  // `tools` is the configured tools mode (what tools/list shows); `compact` serves
  // fleet_find_nodes and fleet_describe_node, callable in every mode. `wall_ms` is Unix
  // milliseconds (tokens, commit tokens, rate buckets), `steady_ms` monotonic (latencies).
  McpMethods(const FrontOptions& options, FleetView& fleet, const ToolSurface& tools, const CompactTools& compact,
             const CallRunner& calls, Elicitations& elicitations, NodeResources& resources, TelemetryFanout& fanout,
             OpenStreams& streams, FrontMetrics& metrics, const CallLog& log, const ProtectedResource& resource,
             std::function<int64_t()> wall_ms, std::function<int64_t()> steady_ms)
      : options_(options), fleet_(fleet), tools_(tools), compact_(compact), calls_(calls), elicitations_(elicitations),
        resources_(resources), fanout_(fanout), streams_(streams), metrics_(metrics), log_(log), resource_(resource),
        wall_ms_(std::move(wall_ms)), steady_ms_(std::move(steady_ms)) {}

  json::Document initialize_result(McpRevision revision) const;
  // server/discover (2026-07-28): every revision served, the capabilities and instructions.
  json::Document discover_result() const;

  // Answers on `scheduler`.
  void request(const RpcMessage& m, const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
               const std::shared_ptr<Scheduler>& scheduler, Answer answer);
  void notification(const RpcMessage& m, McpSession& session);
  // subscriptions/listen (2026-07-28), its stream open: subscribes the stream's session to the
  // metrics resources of `filter` (subscribe_metrics: those refused are left out), acknowledges
  // `filter` on it, its other resourceSubscriptions narrowed to the resources of the session's
  // tenant, then subscribes the session to those (node_resources.h) as resources/subscribe does a
  // 2025 session. `scheduler` is the stream's.
  void listen(const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
              const std::shared_ptr<Scheduler>& scheduler, std::string id_json, ListenFilter filter,
              ListenStreams& listens);

 private:
  // resources/templates/list, resources/list, read, subscribe, unsubscribe (node_resources.h; a
  // metrics resource: read_metrics, subscribe_metrics).
  void resources_request(const RpcMessage& m, const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                         const std::shared_ptr<Scheduler>& scheduler, Answer answer);
  // resources/read of a metrics resource (streams/metrics_uri.h): a call of the node's
  // system.metrics snapshot tool by the caller (the gate, rate limit and audit of a tools/call of
  // it), its MetricsSample the resource's text.
  void read_metrics(const std::shared_ptr<const FleetSnapshot>& fleet, std::string_view uri, const RpcMessage& m,
                    const SharedAgentToken& agent, const std::shared_ptr<Scheduler>& scheduler, Answer answer);
  // A subscription of `session` to the metrics resource `uri` (none more when it has one already):
  // through the gate as a call of the node's subscribe tool, then start_metrics. Refused: an unknown URI or one of another tenant
  // (kUnknownTool), a malformed one (kExecution, E_INVALID_ARGUMENTS), or the gate's or the stream
  // quota's refusal (audited).
  Result<void, CallRefusal> subscribe_metrics(const FleetSnapshot& fleet, std::string_view uri, const AgentToken& agent,
                                              const std::shared_ptr<McpSession>& session,
                                              const std::shared_ptr<Scheduler>& scheduler, std::string listen_id);
  // A refused metrics resource request as its JSON-RPC answer (audited, if at all, by the caller):
  // -32002 when not found, -32602 for a malformed URI, the 403 step-up for a scope, else -32603
  // with the envelope.
  void refuse_resource(const CallRefusal& refusal, std::string_view uri, const RpcMessage& m, const AgentToken& agent,
                       const Answer& answer);
  void tools_list(const RpcMessage& m, const AgentToken& agent, McpSession& session, Answer& answer);
  // prompts/list, prompts/get (fleet_prompts.h) and completion/complete (completions.h).
  void prompts_request(const RpcMessage& m, const AgentToken& agent, Answer& answer);
  // A tool's success as the JSON-RPC response to `key`: a result with an image preview keeps the
  // image (photo_store.h) and links it.
  std::string success(std::string_view key, const std::string& result_json, McpRevision revision,
                      std::string_view tenant, std::string_view node_id);
  void tools_call(const RpcMessage& m, const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                  const std::shared_ptr<Scheduler>& scheduler, Answer answer);
  // Admit (CallRunner) and run one resolved call of `fleet`; the rest of tools_call. A first phase
  // is checked on the device first (actuation_check.h) unless `device_checked` says it was.
  void dispatch(const std::shared_ptr<const FleetSnapshot>& fleet, const ResolvedCall& call, const RpcMessage& m,
                const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                const std::shared_ptr<Scheduler>& scheduler, Answer answer,
                std::string_view confirmed_by = {}, bool device_checked = false);
  // actuation_check.h: runs `read` (a read of the capability `call` acts on); when its result
  // rules the call out, answers the refusal, else dispatches the call again, checked.
  void check_on_device(const std::shared_ptr<const FleetSnapshot>& fleet, const FleetTool& read, const ResolvedCall& call,
                       const RpcMessage& m, const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                       const std::shared_ptr<Scheduler>& scheduler,
                       Answer answer);
  // Audits and answers a refusal, as JSON-RPC error, 403 step-up or tool error by its kind.
  void refuse(const CallRefusal& refusal, const json::Value& id, const AgentToken& agent, McpRevision revision,
              const Answer& answer);
  // elicitation.h: ask the human; on accept, dispatch again with the commit token. The call is
  // tracked in its session meanwhile: the session's end answers it at once.
  // `tool` (keeping its snapshot alive) is the call's resolved tool, handed on: after the answer it
  // is only re-checked (FleetSnapshot::same_tool), never resolved again.
  void confirm_by_elicitation(std::shared_ptr<const FleetTool> tool, const std::string& commit_token, const json::Value* arguments,
                              const RpcMessage& m, const SharedAgentToken& agent,
                              const std::shared_ptr<McpSession>& session,                               const std::shared_ptr<Scheduler>& scheduler, Answer answer);
  // 2026-07-28's confirmation (a multi-round-trip request): the first phase of a two-phase call
  // from a client that declared elicitation is answered with an input_required result asking the
  // user, its requestState sealing the commit token the gate issued (request_state.h).
  void ask_in_result(const FleetTool& tool, const std::string& commit_token, const json::Value* arguments,
                     const RpcMessage& m, const AgentToken& agent, Answer& answer);
  // The repeat carrying the user's answer and that requestState: accept runs the call with the
  // sealed commit token; decline, cancel, no answer or a state that does not open is E_SAFETY_DENIED.
  void answer_confirmation(const std::shared_ptr<const FleetSnapshot>& fleet, const ResolvedCall& call,
                           const RpcMessage& m, const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                           const std::shared_ptr<Scheduler>& scheduler,
                           Answer answer);
  // fleet_read (fleet_read.h): the read on every chosen node, answered once all have answered.
  // `plan` is the call's resolution (ToolSurface::resolve) in `fleet`.
  void fleet_read(const std::shared_ptr<const FleetSnapshot>& fleet, const FleetReadPlan& plan, const RpcMessage& m,
                  const SharedAgentToken& caller, const std::shared_ptr<McpSession>& session,
                  const std::shared_ptr<Scheduler>& scheduler, Answer answer);
  // The admitted unary call to a tool of `fleet` (CallRunner::start), tracked in its session.
  void run_unary(const std::shared_ptr<const FleetSnapshot>& fleet, GatePass pass, const RpcMessage& m,
                 const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                 const std::shared_ptr<Scheduler>& scheduler, Answer answer);
  // A metrics subscription: answered at once, with the subscription or the stream quota's refusal;
  // on 2026-07-28, which has no stream for it, with the lease and the metrics resource URI to
  // subscribe to instead (nothing is held). `arguments` are the call's own, which the gate
  // validated (null: none).
  void open_stream(const FleetTool& tool, const json::Value* arguments, const RpcMessage& m,
                   const AgentToken& agent, const std::shared_ptr<McpSession>& session,
                   const std::shared_ptr<Scheduler>& scheduler, Answer& answer);
  // A metrics subscription of `tool` for `session` under the stream quota (null: past it), held
  // by the session under `key` until it ends (cancel(key), the session's end), audited when it ends.
  std::shared_ptr<McpMetricsStream> start_metrics(const FleetTool& tool, const McpMetricsRequest& request,
                                                  const AgentToken& agent, const std::shared_ptr<McpSession>& session,
                                                  const std::shared_ptr<Scheduler>& scheduler, const std::string& key);

  const FrontOptions& options_;
  FleetView& fleet_;
  const ToolSurface& tools_;
  const CompactTools& compact_;
  const CallRunner& calls_;
  Elicitations& elicitations_;
  NodeResources& resources_;
  TelemetryFanout& fanout_;
  OpenStreams& streams_;
  FrontMetrics& metrics_;
  const CallLog& log_;
  const ProtectedResource& resource_;
  std::function<int64_t()> wall_ms_;
  std::function<int64_t()> steady_ms_;
  const FleetPrompts prompts_{tools_};
  // Its key is the option's (shared by the fronts behind one balancer) or this front's own.
  const RequestStates states_{options_.request_state_key};
};

}  // namespace fleetmcp::http
