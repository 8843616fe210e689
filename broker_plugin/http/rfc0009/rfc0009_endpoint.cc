#include "broker_plugin/http/rfc0009/rfc0009_endpoint.h"

#include "broker_plugin/http/transport/error_status.h"
#include "broker_plugin/http/calls/fleet_read_run.h"
#include "broker_plugin/http/base/media_type.h"
#include "broker_plugin/http/rfc0009/rfc0009_stream.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kVia = "rfc0009";
constexpr std::string_view kRequestSchema = "mcp://schemas/tools.call.request@1.1.0";

ErrorEnvelope bad_request(std::string_view what, std::string_view fix) {
  return ErrorEnvelope(ErrorCode::kBadRequest, what, fix);
}

// RFC-0009 clients read error@1.2.0's codes, where arguments failing their schema are
// E_MANIFEST_INVALID (RFC-0005 §8): E_INVALID_ARGUMENTS is for MCP callers only (docs/protocol.md D41).
ErrorEnvelope for_rfc0009(ErrorEnvelope e) {
  if (e.code == ErrorCode::kInvalidArguments) e.code = ErrorCode::kManifestInvalid;
  return e;
}

}  // namespace

void Rfc0009Endpoint::handle(const std::shared_ptr<Exchange>& ex, const SharedAgentToken& caller) {
  const AgentToken& agent = *caller;
  const HttpRequest& req = ex->request();
  if (req.method != "POST") {
    HttpReply r = envelope_reply(405, bad_request("use POST", "POST {\"tool\": ..., \"arguments\": {...}}"));
    return ex->respond(std::move(r.with("Allow", "POST")));
  }
  if (!is_json_content_type(req.header("Content-Type"))) {
    return ex->respond(envelope_reply(415, bad_request("Content-Type must be application/json", "send a JSON body")));
  }
  const auto parsed = json::parse_strict(req.body, ErrorCode::kBadRequest);
  if (!parsed) return ex->respond(envelope_reply(parsed.error()));
  const json::Document& body = *parsed;
  if (const auto failure = schemas_.validate(kRequestSchema, body)) {
    const std::string where = failure->path.empty() ? "the top level" : ascii_clamp(failure->path, 80);
    return ex->respond(envelope_reply(bad_request("request body invalid at " + where + ": " + ascii_clamp(failure->for_sender(), 200),
                                                  failure->fix_for_sender(
                                                      "send {\"tool\": \"<name from tools/list>\", \"arguments\": {...}}"))));
  }
  const std::string tool_name(*json::get_string(body, "tool"));
  const json::Value* arguments = json::find(body, "arguments");
  const auto fleet = fleet_.snapshot();

  // The one resolution (tool_surface.h), here, once: projected names and the names the default
  // mode lists (a by_kind tool, fleet_read; docs/protocol.md D44). fleet_find_nodes and
  // fleet_describe_node answer MCP results, and stay MCP's.
  const auto resolved = ToolSurface::resolve(*fleet, agent.tenant, tool_name, arguments);
  const bool mcp_only = resolved && (resolved->action == ResolvedCall::Action::kFindNodes ||
                                     resolved->action == ResolvedCall::Action::kDescribeNode);
  if (!resolved || mcp_only) {
    const ErrorEnvelope e =
        resolved ? ErrorEnvelope(ErrorCode::kManifestNotFound, tool_name + " is served on MCP only",
                                 "call it with MCP tools/call on /mcp; here, call a node's tool or fleet_read")
                 : for_rfc0009(resolved.error().error);
    log_.refused(kVia, &agent, tool_name, nullptr, e);
    return ex->respond(envelope_reply(e));
  }
  if (resolved->action == ResolvedCall::Action::kFleetRead) return fleet_read(ex, caller, fleet, *resolved->reads);
  // §3: a subscribe without Accept: text/event-stream is refused before it costs a rate token.
  if (is_metrics_stream(*resolved->tool) && !names(req.header("Accept"), "text/event-stream")) {
    const ErrorEnvelope e = bad_request("subscribe streams need Accept: text/event-stream (RFC-0009 section 3)",
                                        "send Accept: text/event-stream, or call the snapshot verb for one sample");
    log_.refused(kVia, &agent, tool_name, resolved->tool, e);
    return ex->respond(envelope_reply(e));
  }

  auto admitted = calls_.admit(*fleet, agent, *resolved);
  if (!admitted) {
    const CallRefusal& refusal = admitted.error();
    const ErrorEnvelope error = for_rfc0009(refusal.error);
    log_.refused(kVia, &agent, tool_name, refusal.tool, error);
    HttpReply r = envelope_reply(error);
    if (refusal.kind == RefusalKind::kScope) {
      r.with("WWW-Authenticate", resource_.step_up(agent, refusal.error.message, refusal.required_scope));
    }
    return ex->respond(std::move(r));
  }
  if (admitted->confirmed_by_commit_token) log_.confirmation(kVia, agent, *admitted->tool, true, "commit_token");
  if (is_metrics_stream(*admitted->tool)) return open_stream(ex, agent, *admitted->tool, resolved->arguments);
  calls_.start(kVia, ex->scheduler(), caller, fleet, std::move(*admitted), [ex](CallResult result) {
    ex->respond(result ? HttpReply::json(200, std::move(*result)) : envelope_reply(result.error()));
  });
}

void Rfc0009Endpoint::fleet_read(const std::shared_ptr<Exchange>& ex, const SharedAgentToken& caller,
                                 const std::shared_ptr<const FleetSnapshot>& fleet, const FleetReadPlan& plan) {
  auto run = FleetReadRun::admit(calls_, *fleet, *caller, plan);
  if (!run) {
    const ErrorEnvelope e = for_rfc0009(run.error().error);
    log_.refused(kVia, caller.get(), std::string(kFleetReadTool), nullptr, e);
    return ex->respond(envelope_reply(e));
  }
  (*run)->start(kVia, ex->scheduler(), caller, fleet,
                [ex](json::Document results) { ex->respond(HttpReply::json(200, json::to_string(results))); });
}

void Rfc0009Endpoint::open_stream(const std::shared_ptr<Exchange>& ex, const AgentToken& agent, const FleetTool& tool,
                                  const json::Value* arguments) {
  const auto interval = arguments != nullptr ? json::get_int64(*arguments, "interval_ms") : std::nullopt;
  const int64_t interval_ms = interval.value_or(5000);
  const Rfc0009StreamConfig config{options_.sse_ping, options_.sse_idle_timeout, options_.sse_buffer_frames};
  const int64_t started = steady_ms_();
  // The stream quota, and the token re-checks that end the stream with its token (open_streams.h).
  auto stream = std::make_shared<std::weak_ptr<Rfc0009Stream>>();
  std::shared_ptr<OpenStreams::Ticket> ticket = streams_.open(agent, wall_ms_(), [stream](StreamStop) {
    if (const auto s = stream->lock()) s->stop();
  });
  if (!ticket) {
    const ErrorEnvelope e = stream_quota_error();
    log_.refused(kVia, &agent, tool.canonical_name, &tool, e);
    return Rfc0009Stream::refuse(*ex, CloseCode::kRateLimited);
  }
  metrics_.stream_opened(StreamKind::kRfc0009);
  // The ticket lives as long as this callback: until the stream has closed.
  auto closed = [this, agent, tool, started, ticket](CloseCode code) {
    metrics_.stream_closed(StreamKind::kRfc0009);
    const std::string_view e = code == CloseCode::kDeviceOffline ? "E_NODE_OFFLINE"
                               : code == CloseCode::kNormal     ? ""
                                                                : close_reason(code);
    log_.stream_ended(kVia, agent, tool, e, steady_ms_() - started);
  };
  *stream = Rfc0009Stream::open(*ex, fanout_, tool, agent.tenant, interval_ms, config, std::move(closed));
}

}  // namespace fleetmcp::http
