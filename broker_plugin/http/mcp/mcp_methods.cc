#include "broker_plugin/http/mcp/mcp_methods.h"

#include <algorithm>
#include <optional>

#include "broker_plugin/http/calls/actuation_check.h"
#include "broker_plugin/http/calls/commit_tokens.h"
#include "broker_plugin/http/calls/fleet_read_run.h"
#include "broker_plugin/http/stateless/stateless_request.h"
#include "broker_plugin/http/streams/metrics_uri.h"
#include "broker_plugin/http/surface/fleet_read.h"
#include "broker_plugin/http/prompts/completions.h"
#include "broker_plugin/http/surface/tool_hints.h"
#include "broker_plugin/http/surface/tool_result.h"

#ifndef FLEETMCP_VERSION
#error "FLEETMCP_VERSION (CMake's PROJECT_VERSION) is defined by broker_plugin/http/CMakeLists.txt"
#endif

namespace fleetmcp::http {
namespace {

constexpr std::string_view kVia = "mcp";
// The key of the confirmation in a 2026-07-28 input_required result and in the answer to it.
constexpr std::string_view kConfirmInput = "confirm";

RpcAnswer result(const json::Value& id, const json::Value& r) { return RpcAnswer{200, rpc_result(id, r), {}}; }

RpcAnswer error(const json::Value& id, int code, std::string_view message, const ErrorEnvelope* envelope = nullptr) {
  return RpcAnswer{200, rpc_error(&id, code, message, envelope), {}};
}

// What a session tracks a subscription to the metrics resource `uri` under: no JSON-RPC id text
// (the key of a call in flight) looks like it.
std::string metrics_subscription_key(std::string_view uri) { return "resource " + std::string(uri); }

const json::Value* member(const json::Value* object, std::string_view key) {
  return object != nullptr && object->IsObject() ? json::find(*object, key) : nullptr;
}

bool has_output_schema(const FleetTool& tool, McpRevision revision) {
  return has_structured_output(revision) && !tool.verb.output_schema.empty();
}

// What the user is asked before a physical actuation runs; `shown` is the arguments' JSON.
std::string confirmation_message(const FleetTool& tool, std::string_view shown) {
  return "Confirm physical actuation: " + tool.kind + " " + tool.name.verb + " on device " + tool.name.node_id +
         " (capability " + tool.name.cap_id + ") with arguments " + ascii_clamp(shown, 400) +
         ". Accept to run it now; decline or cancel to refuse.";
}

// The user's answer was not "accept" (`how`: decline, cancel, no answer).
ErrorEnvelope not_confirmed(std::string_view how) {
  return ErrorEnvelope(ErrorCode::kSafetyDenied, "the user did not confirm this physical actuation (" + std::string(how) + ")",
                       "ask the user before trying again; nothing was sent to the device");
}

const json::Value& arguments_or_none(const json::Value* arguments) {
  static const json::Value kNone(rapidjson::kObjectType);
  return arguments != nullptr && arguments->IsObject() ? *arguments : kNone;
}

// What the server offers on `revision`. 2026-07-28 has no session to hold a log level; its
// tool-list changes and resource updates come on a subscriptions/listen stream (listen_streams.h)
// where 2025's come on the session's GET stream, and so do its resource-list changes, which 2025
// sessions are not told (they subscribe to a resource instead).
json::Value capabilities(McpRevision revision, json::Document::AllocatorType& a) {
  const bool session = !is_stateless(revision);
  json::Value caps(rapidjson::kObjectType), tools(rapidjson::kObjectType);
  tools.AddMember("listChanged", true, a);
  caps.AddMember("tools", tools, a);
  if (session) caps.AddMember("logging", json::Value(rapidjson::kObjectType), a);  // metrics samples are log messages
  json::Value resources(rapidjson::kObjectType);  // node manifests (node_resources.h)
  resources.AddMember("subscribe", true, a);  // resources/subscribe, or listen's resourceSubscriptions
  resources.AddMember("listChanged", !session, a);
  caps.AddMember("resources", resources, a);
  json::Value prompts(rapidjson::kObjectType);  // the same three for everyone (fleet_prompts.h)
  prompts.AddMember("listChanged", false, a);
  caps.AddMember("prompts", prompts, a);
  caps.AddMember("completions", json::Value(rapidjson::kObjectType), a);  // completions.h
  return caps;
}

json::Value server_info(McpRevision revision, json::Document::AllocatorType& a) {
  json::Value info(rapidjson::kObjectType);
  info.AddMember("name", "fleetmcp", a);
  if (has_structured_output(revision)) info.AddMember("title", "fleetmcp device fleet", a);
  info.AddMember("version", FLEETMCP_VERSION, a);  // the build's: CMake's project version
  return info;
}

}  // namespace

json::Document McpMethods::initialize_result(McpRevision revision) const {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("protocolVersion", json::string_value(revision_name(revision), a), a);
  d.AddMember("capabilities", capabilities(revision, a), a);
  d.AddMember("serverInfo", server_info(revision, a), a);
  d.AddMember("instructions", json::string_value(tools_.instructions(), a), a);  // the mode served
  return d;
}

json::Document McpMethods::discover_result() const {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value versions(rapidjson::kArrayType);
  for (const std::string_view name : kSupportedRevisionNames) versions.PushBack(json::string_value(name, a), a);
  d.AddMember("supportedVersions", versions, a);
  d.AddMember("capabilities", capabilities(McpRevision::k2026_07_28, a), a);
  d.AddMember("instructions", json::string_value(tools_.instructions(), a), a);
  json::Value meta(rapidjson::kObjectType);
  meta.AddMember("io.modelcontextprotocol/serverInfo", server_info(McpRevision::k2026_07_28, a), a);
  d.AddMember("_meta", meta, a);
  return d;
}

void McpMethods::request(const RpcMessage& m, const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                         const std::shared_ptr<Scheduler>& scheduler,
                         Answer answer) {
  const json::Value& id = *m.id;
  if (m.method == "ping") {
    answer(result(id, json::Value(rapidjson::kObjectType)));
  } else if (m.method == "server/discover" && is_stateless(session->revision())) {
    answer(result(id, discover_result()));
  } else if (m.method == "tools/list") {
    tools_list(m, *agent, *session, answer);
  } else if (m.method == "tools/call") {
    tools_call(m, agent, session, scheduler, std::move(answer));
  } else if (m.method.starts_with("resources/")) {
    resources_request(m, agent, session, scheduler, std::move(answer));
  } else if (m.method.starts_with("prompts/") || m.method == "completion/complete") {
    prompts_request(m, *agent, answer);
  } else if (m.method == "logging/setLevel") {
    const auto level = m.params && m.params->IsObject() ? json::get_string(*m.params, "level") : std::nullopt;
    if (!level || log_level_rank(*level) < 0) {
      answer(error(id, rpc::kInvalidParams, "Invalid params: level must be an RFC 5424 severity name"));
      return;
    }
    session->set_log_level(*level);
    answer(result(id, json::Value(rapidjson::kObjectType)));
  } else if (m.method == "initialize") {
    answer(RpcAnswer{400, rpc_error(&id, rpc::kInvalidRequest, "Invalid Request: the session is already initialized"), {}});
  } else {
    answer(error(id, rpc::kMethodNotFound, "Method not found: " + std::string(m.method)));
  }
}

void McpMethods::resources_request(const RpcMessage& m, const SharedAgentToken& caller,
                                   const std::shared_ptr<McpSession>& session,
                                   const std::shared_ptr<Scheduler>& scheduler, Answer answer) {
  const AgentToken& agent = *caller;
  const json::Value& id = *m.id;
  const auto fleet = fleet_.snapshot();
  const auto text = [&](std::string_view key) {
    const json::Value* v = member(m.params, key);
    return v != nullptr && v->IsString() ? std::optional<std::string>(std::string(v->GetString(), v->GetStringLength()))
                                         : std::nullopt;
  };
  const auto not_found = [&](const std::optional<std::string>& uri) {
    answer(error(id, rpc::kResourceNotFound, "Resource not found: " + ascii_clamp(uri.value_or(""), 200)));
  };
  if (m.method == "resources/templates/list") return answer(result(id, resources_.templates_result()));
  if (m.method == "resources/list") {
    const auto page = resources_.list_result(*fleet, agent.tenant, text("cursor"));
    if (!page) return answer(error(id, rpc::kInvalidParams, "Invalid params: the cursor is not one this server issued"));
    return answer(result(id, *page));
  }
  const auto uri = text("uri");
  if (!uri) return answer(error(id, rpc::kInvalidParams, "Invalid params: uri is required"));
  if (is_metrics_uri(*uri)) {
    // A node's metrics (metrics_uri.h): calls of its system.metrics tools.
    if (m.method == "resources/read") return read_metrics(fleet, *uri, m, caller, scheduler, std::move(answer));
    if (m.method == "resources/subscribe") {
      const auto subscribed = subscribe_metrics(*fleet, *uri, agent, session, scheduler, {});
      if (!subscribed) return refuse_resource(subscribed.error(), *uri, m, agent, answer);
      return answer(result(id, json::Value(rapidjson::kObjectType)));
    }
    if (m.method == "resources/unsubscribe") {
      session->cancel(metrics_subscription_key(*uri));
      return answer(result(id, json::Value(rapidjson::kObjectType)));
    }
  }
  if (m.method == "resources/read") {
    const auto read = resources_.read_result(*fleet, agent.tenant, *uri);
    return read ? answer(result(id, *read)) : not_found(uri);
  }
  if (m.method == "resources/subscribe") {
    return resources_.subscribe(*fleet, session, *uri) ? answer(result(id, json::Value(rapidjson::kObjectType)))
                                                          : not_found(uri);
  }
  if (m.method == "resources/unsubscribe") {
    resources_.unsubscribe(*session, *uri);
    return answer(result(id, json::Value(rapidjson::kObjectType)));
  }
  answer(error(id, rpc::kMethodNotFound, "Method not found: " + std::string(m.method)));
}

void McpMethods::listen(const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                        const std::shared_ptr<Scheduler>& scheduler, std::string id_json, ListenFilter filter,
                        ListenStreams& listens) {
  const auto fleet = fleet_.snapshot();
  std::vector<std::string> manifests;
  // The metrics resources first, so that the acknowledgement leaves out those refused (an unknown
  // URI, a malformed one, the gate's or the stream quota's refusal: docs/http-front.md "Metrics
  // over MCP"); their samples go out after it (two hops on the stream's scheduler).
  std::erase_if(filter.resource_uris, [&](const std::string& uri) {
    if (is_metrics_uri(uri)) return !subscribe_metrics(*fleet, uri, *agent, session, scheduler, id_json);
    if (!NodeResources::has(*fleet, session->tenant(), uri)) return true;
    manifests.push_back(uri);
    return false;
  });
  listens.add(session, id_json, std::move(filter));  // the acknowledgement is the stream's first message
  for (const std::string& uri : manifests) resources_.subscribe(*fleet, session, uri, id_json);
}

namespace {

// The node's system.metrics tool of `verb` that the metrics resource `uri` names for `tenant`.
// Unknown, another tenant's and a node without metrics look the same, as for the manifests.
Result<const FleetTool*, CallRefusal> metrics_tool(const FleetSnapshot& fleet, std::string_view tenant,
                                                   const MetricsUri& uri, std::string_view verb, std::string_view asked) {
  if (const FleetNode* node = fleet.node(tenant, uri.node_id)) {
    for (const FleetTool& tool : node->tools) {
      if (tool.kind == "system.metrics" && tool.name.verb == verb) return &tool;
    }
  }
  return unknown_tool(asked);
}

// The arguments of the call a metrics resource stands for: its interval (subscribe only) and sections.
json::Document metrics_arguments(const MetricsUri& uri, bool interval) {
  json::Document args(rapidjson::kObjectType);
  auto& a = args.GetAllocator();
  if (interval) args.AddMember("interval_ms", uri.interval_ms, a);
  json::Value include = metrics_include_argument(uri.include, a);
  if (!include.IsNull()) args.AddMember("include", include, a);
  return args;
}

}  // namespace

void McpMethods::refuse_resource(const CallRefusal& refusal, std::string_view uri, const RpcMessage& m,
                                 const AgentToken& agent, const Answer& answer) {
  const json::Value& id = *m.id;
  if (refusal.kind == RefusalKind::kUnknownTool) {
    return answer(error(id, rpc::kResourceNotFound, "Resource not found: " + ascii_clamp(uri, 200)));
  }
  if (refusal.kind == RefusalKind::kScope) {  // as refuse() answers a tools/call of the tool
    return answer(RpcAnswer{403, rpc_error(&id, rpc::kInvalidRequest, refusal.error.message, &refusal.error),
                            {{"WWW-Authenticate", resource_.step_up(agent, refusal.error.message, refusal.required_scope)}}});
  }
  const bool malformed = refusal.error.code == ErrorCode::kInvalidArguments;
  answer(error(id, malformed ? rpc::kInvalidParams : rpc::kInternalError,
               (malformed ? "Invalid params: " : "") + refusal.error.message, &refusal.error));
}

void McpMethods::read_metrics(const std::shared_ptr<const FleetSnapshot>& fleet, std::string_view uri,
                              const RpcMessage& m, const SharedAgentToken& caller,
                              const std::shared_ptr<Scheduler>& scheduler, Answer answer) {
  const AgentToken& agent = *caller;
  const auto parsed = parse_metrics_uri(uri);
  if (!parsed) return refuse_resource(CallRefusal{RefusalKind::kExecution, parsed.error()}, uri, m, agent, answer);
  const auto tool = metrics_tool(*fleet, agent.tenant, *parsed, "snapshot", uri);
  if (!tool) return refuse_resource(tool.error(), uri, m, agent, answer);
  const json::Document args = metrics_arguments(*parsed, false);
  auto admitted = calls_.admit(*fleet, agent, ResolvedCall{ResolvedCall::Action::kCall, *tool, &args, "", {}});
  if (!admitted) {
    log_.refused(kVia, &agent, (*tool)->canonical_name, *tool, admitted.error().error);
    return refuse_resource(admitted.error(), uri, m, agent, answer);
  }
  auto id = std::make_shared<json::Document>();
  id->CopyFrom(*m.id, id->GetAllocator());
  calls_.start(kVia, scheduler, caller, fleet, std::move(*admitted),
               [id, answer, uri = std::string(uri)](CallResult sample) {
                 if (!sample) {
                   return answer(RpcAnswer{200, rpc_error(id.get(), rpc::kInternalError, sample.error().message,
                                                          &sample.error()), {}});
                 }
                 json::Document d(rapidjson::kObjectType);
                 auto& a = d.GetAllocator();
                 json::Value content(rapidjson::kObjectType), contents(rapidjson::kArrayType);
                 content.AddMember("uri", json::string_value(uri, a), a);
                 content.AddMember("mimeType", "application/json", a);
                 content.AddMember("text", json::string_value(*sample, a), a);
                 contents.PushBack(content, a);
                 d.AddMember("contents", contents, a);
                 answer(result(*id, d));
               });
}

Result<void, CallRefusal> McpMethods::subscribe_metrics(const FleetSnapshot& fleet, std::string_view uri,
                                                        const AgentToken& agent,
                                                        const std::shared_ptr<McpSession>& session,
                                                        const std::shared_ptr<Scheduler>& scheduler,
                                                        std::string listen_id) {
  const std::string key = metrics_subscription_key(uri);
  if (session->tracks(key)) return {};  // subscribed already (or named twice): one subscription
  const auto parsed = parse_metrics_uri(uri);
  if (!parsed) return CallRefusal{RefusalKind::kExecution, parsed.error()};
  const auto tool = metrics_tool(fleet, agent.tenant, *parsed, "subscribe", uri);
  if (!tool) return tool.error();
  // The same gate as the subscribe tool's tools/call: scope, arguments, online, rate.
  const json::Document args = metrics_arguments(*parsed, true);
  auto admitted = calls_.admit(fleet, agent, ResolvedCall{ResolvedCall::Action::kCall, *tool, &args, "", {}});
  if (!admitted) {
    log_.refused(kVia, &agent, (*tool)->canonical_name, *tool, admitted.error().error);
    return admitted.error();
  }
  McpMetricsRequest request{parsed->interval_ms, parsed->include, session->revision(), std::string(uri), std::move(listen_id)};
  if (!start_metrics(**tool, request, agent, session, scheduler, key)) {
    const ErrorEnvelope e = stream_quota_error();
    log_.refused(kVia, &agent, (*tool)->canonical_name, *tool, e);
    return CallRefusal{RefusalKind::kExecution, e, *tool};
  }
  return {};
}

void McpMethods::prompts_request(const RpcMessage& m, const AgentToken& agent, Answer& answer) {
  const json::Value& id = *m.id;
  if (m.method == "prompts/list") return answer(result(id, prompts_.list_result()));
  if (m.method != "prompts/get" && m.method != "completion/complete") {
    return answer(error(id, rpc::kMethodNotFound, "Method not found: " + std::string(m.method)));
  }
  const auto fleet = fleet_.snapshot();
  const auto r = m.method == "prompts/get" ? prompts_.get_result(*fleet, agent.tenant, m.params)
                                           : complete(*fleet, agent.tenant, m.params);
  if (!r) return answer(error(id, rpc::kInvalidParams, "Invalid params: " + r.error().message));
  answer(result(id, *r));
}

std::string McpMethods::success(std::string_view key, const std::string& result_json, McpRevision revision,
                                std::string_view tenant, std::string_view node_id) {
  // Only 2025-06-18 and later have resource_link content: older clients get the preview alone.
  if (!has_structured_output(revision) || result_json.find("\"preview\"") == std::string::npos) {
    return rpc_tool_success(key, result_json, revision);
  }
  const auto parsed = json::parse_strict(result_json, ErrorCode::kInternal);
  const auto kept = parsed ? resources_.photos().keep(tenant, node_id, *parsed) : std::nullopt;
  if (!kept) return rpc_tool_success(key, result_json, revision);
  const ResourceLink link{kept->uri, "photo from node " + std::string(node_id), kept->mime_type, kept->size_bytes};
  return rpc_result(key, tool_success(result_json, revision, &link));
}

void McpMethods::notification(const RpcMessage& m, McpSession& session) {
  if (m.method != "notifications/cancelled") return;  // initialized and the rest need nothing
  if (const json::Value* id = member(m.params, "requestId")) session.cancel(id_key(*id));
}

void McpMethods::tools_list(const RpcMessage& m, const AgentToken& agent, McpSession& session, Answer& answer) {
  const json::Value& id = *m.id;
  auto page = tools_.list(*fleet_.snapshot(), agent.tenant, member(m.params, "cursor"), session.revision());
  if (!page) return answer(error(id, rpc::kInvalidParams, "Invalid params: " + page.error().message));
  keep_callable(*page, agent);
  answer(result(id, *page));
}

void McpMethods::tools_call(const RpcMessage& m, const SharedAgentToken& caller, const std::shared_ptr<McpSession>& session,
                            const std::shared_ptr<Scheduler>& scheduler,
                            Answer answer) {
  const AgentToken& agent = *caller;
  const json::Value& id = *m.id;
  const auto name = m.params && m.params->IsObject() ? json::get_string(*m.params, "name") : std::nullopt;
  if (!name) {
    answer(error(id, rpc::kInvalidParams, "Invalid params: tools/call needs a name"));
    return;
  }
  const McpRevision revision = session->revision();
  const auto fleet = fleet_.snapshot();
  const json::Value* arguments = member(m.params, "arguments");
  // The one resolution of the name (tool_surface.h): the same in every tools mode.
  auto resolved = ToolSurface::resolve(*fleet, agent.tenant, *name, arguments);
  if (!resolved) return refuse(resolved.error(), id, agent, revision, answer);
  if (resolved->action == ResolvedCall::Action::kCall && is_stateless(revision) && member(m.params, "requestState")) {
    return answer_confirmation(fleet, *resolved, m, caller, session, scheduler, std::move(answer));
  }
  switch (resolved->action) {
    case ResolvedCall::Action::kFindNodes:
      return answer(result(id, compact_.find_nodes(*fleet, agent.tenant, arguments, wall_ms_(), revision)));
    case ResolvedCall::Action::kDescribeNode:
      return answer(result(id, compact_.describe_node(*fleet, agent.tenant, arguments, revision)));
    case ResolvedCall::Action::kFleetRead:
      return fleet_read(fleet, *resolved->reads, m, caller, session, scheduler, std::move(answer));
    case ResolvedCall::Action::kCall:
      break;
  }
  dispatch(fleet, *resolved, m, caller, session, scheduler, std::move(answer));
}

void McpMethods::refuse(const CallRefusal& refusal, const json::Value& id, const AgentToken& agent,
                        McpRevision revision, const Answer& answer) {
  if (refusal.kind != RefusalKind::kMalformedFleetCall) log_.refused(kVia, &agent, refusal.asked, refusal.tool, refusal.error);
  switch (refusal.kind) {
    case RefusalKind::kUnknownTool:
      answer(error(id, rpc::kInvalidParams, refusal.error.message, &refusal.error));
      break;
    case RefusalKind::kScope:
      // MCP authorization: a runtime scope shortfall is HTTP 403 with a step-up challenge.
      answer(RpcAnswer{403, rpc_error(&id, rpc::kInvalidRequest, refusal.error.message, &refusal.error),
                       {{"WWW-Authenticate", resource_.step_up(agent, refusal.error.message, refusal.required_scope)}}});
      break;
    case RefusalKind::kExecution:
      // Without a tool, a by_kind tool's own arguments were wrong: by_kind tools list an outputSchema.
      answer(result(id, tool_error(refusal.error,
                                   refusal.tool ? has_output_schema(*refusal.tool, revision) : has_structured_output(revision),
                                   revision)));
      break;
    case RefusalKind::kMalformedFleetCall:
      answer(result(id, tool_error(refusal.error, false, revision)));  // fleet_call lists no outputSchema
      break;
  }
}

void McpMethods::dispatch(const std::shared_ptr<const FleetSnapshot>& fleet, const ResolvedCall& call, const RpcMessage& m,
                          const SharedAgentToken& caller, const std::shared_ptr<McpSession>& session,
                          const std::shared_ptr<Scheduler>& scheduler,
                          Answer answer, std::string_view confirmed_by, bool device_checked) {
  const AgentToken& agent = *caller;
  const json::Value& id = *m.id;
  auto admitted = calls_.admit(*fleet, agent, call, confirmed_by.empty() && !device_checked);
  if (!admitted) {
    const CallRefusal& refusal = admitted.error();
    if (refusal.read_first != nullptr) {
      return check_on_device(fleet, *refusal.read_first, call, m, caller, session, scheduler, std::move(answer));
    }
    if (!refusal.commit_token.empty() && confirmed_by.empty() && is_stateless(session->revision()) &&
        declares_capability(m, "elicitation")) {
      return ask_in_result(*refusal.tool, refusal.commit_token, call.arguments, m, agent, answer);
    }
    if (!refusal.commit_token.empty() && confirmed_by.empty() && elicitations_.can_ask(*session)) {
      // The first phase of a two-phase call, from a client that can ask its human: ask, and on
      // accept repeat the call with the token the gate just issued.
      return confirm_by_elicitation(std::shared_ptr<const FleetTool>(fleet, refusal.tool), refusal.commit_token, call.arguments, m, caller, session,
                                    scheduler, std::move(answer));
    }
    return refuse(refusal, id, agent, session->revision(), answer);
  }
  GatePass& pass = *admitted;
  if (pass.confirmed_by_commit_token) {
    log_.confirmation(kVia, agent, *pass.tool, true, confirmed_by.empty() ? "commit_token" : confirmed_by);
  }
  if (is_metrics_stream(*pass.tool)) {
    open_stream(*pass.tool, call.arguments, m, agent, session, scheduler, answer);
    return;
  }
  run_unary(fleet, std::move(pass), m, caller, session, scheduler, std::move(answer));
}

void McpMethods::check_on_device(const std::shared_ptr<const FleetSnapshot>& fleet, const FleetTool& read,
                                 const ResolvedCall& call, const RpcMessage& m, const SharedAgentToken& caller,
                                 const std::shared_ptr<McpSession>& session,                                  const std::shared_ptr<Scheduler>& scheduler, Answer answer) {
  // What the call needs after the read, copied: the request it came in is gone by then.
  auto request = std::make_shared<json::Document>();
  request->CopyFrom(*m.id, request->GetAllocator());
  std::shared_ptr<json::Document> arguments;
  if (call.arguments != nullptr) {
    arguments = std::make_shared<json::Document>();
    arguments->CopyFrom(*call.arguments, arguments->GetAllocator());
  }
  const FleetTool* acting = call.tool;  // in `fleet`, which the lambdas keep
  const std::string_view at = call.arguments_at;  // a literal (tool_surface.h)
  // A 2026-07-28 request's params carry its client's capabilities, which decide how it confirms.
  std::shared_ptr<json::Document> params;
  if (is_stateless(session->revision()) && m.params != nullptr) {
    params = std::make_shared<json::Document>();
    params->CopyFrom(*m.params, params->GetAllocator());
  }
  auto go_on = [this, fleet, acting, request, params, arguments, at, caller, session, scheduler, answer] {
    RpcMessage again;
    again.kind = RpcKind::kRequest;
    again.id = request.get();
    again.params = params.get();
    dispatch(fleet, ResolvedCall{ResolvedCall::Action::kCall, acting, arguments.get(), at, {}}, again, caller, session,
             scheduler, answer, {}, true);
  };
  // The broker's own read, not the caller's: like the rest of a first phase it spends no rate
  // (the gate found the bucket not empty; issue 33 item 5), so a confirmed set still costs one
  // token. The device's own limits still apply, and a refused read tells nothing.
  calls_.start(kVia, scheduler, caller, fleet, GatePass{&read, "{}", nullptr, false},
               [this, fleet, acting, request, caller, session, answer, go_on](CallResult state) {
                 const auto parsed = state ? json::parse_strict(*state) : Result<json::Document>(state.error());
                 const Status allowed = parsed ? allowed_by_state(*fleet, caller->tenant, *acting, *parsed) : Status();
                 if (allowed) return go_on();  // it may run, or the read told nothing
                 log_.refused(kVia, caller.get(), acting->canonical_name, acting, allowed.error());
                 const McpRevision revision = session->revision();
                 answer(result(*request, tool_error(allowed.error(), has_output_schema(*acting, revision), revision)));
               });
}

void McpMethods::ask_in_result(const FleetTool& tool, const std::string& commit_token, const json::Value* arguments,
                               const RpcMessage& m, const AgentToken& agent, Answer& answer) {
  const json::Value& args = arguments_or_none(arguments);
  // It lives as long as the commit token it carries.
  const std::string state = states_.seal(SealedCall{agent.tenant + "/" + agent.sub, tool.canonical_name, arguments_hash(args),
                                                    wall_ms_() + options_.commit_token_ttl.count(), commit_token});
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("resultType", "input_required", a);
  json::Value schema(rapidjson::kObjectType);  // nothing to fill in: accept, decline or cancel
  schema.AddMember("type", "object", a);
  schema.AddMember("properties", json::Value(rapidjson::kObjectType), a);
  json::Value params(rapidjson::kObjectType);
  params.AddMember("mode", "form", a);
  params.AddMember("message", json::string_value(confirmation_message(tool, json::to_string(args)), a), a);
  params.AddMember("requestedSchema", schema, a);
  json::Value confirm(rapidjson::kObjectType);
  confirm.AddMember("method", "elicitation/create", a);
  confirm.AddMember("params", params, a);
  json::Value requests(rapidjson::kObjectType);
  requests.AddMember(json::string_value(kConfirmInput, a), confirm, a);
  d.AddMember("inputRequests", requests, a);
  d.AddMember("requestState", json::string_value(state, a), a);
  answer(result(*m.id, d));
}

void McpMethods::answer_confirmation(const std::shared_ptr<const FleetSnapshot>& fleet, const ResolvedCall& call,
                                     const RpcMessage& m, const SharedAgentToken& caller,
                                     const std::shared_ptr<McpSession>& session,                                      const std::shared_ptr<Scheduler>& scheduler, Answer answer) {
  const AgentToken& agent = *caller;
  const FleetTool& tool = *call.tool;
  const McpRevision revision = session->revision();
  const json::Value& args = arguments_or_none(call.arguments);
  const json::Value* state = member(m.params, "requestState");
  auto opened = state->IsString() ? states_.open(std::string_view(state->GetString(), state->GetStringLength()),
                                                 agent.tenant + "/" + agent.sub, tool.canonical_name, arguments_hash(args),
                                                 wall_ms_())
                                  : Result<SealedCall>(ErrorEnvelope(ErrorCode::kSafetyDenied, "requestState is not a string",
                                                                     "repeat the call with the requestState it was given"));
  if (!opened) {
    log_.refused(kVia, &agent, tool.canonical_name, &tool, opened.error());
    return answer(result(*m.id, tool_error(opened.error(), has_output_schema(tool, revision), revision)));
  }
  const json::Value* reply = member(member(m.params, "inputResponses"), kConfirmInput);
  const auto action = reply != nullptr && reply->IsObject() ? json::get_string(*reply, "action") : std::nullopt;
  if (action != "accept") {
    const std::string how = action ? ascii_clamp(*action, 20) : "no answer";
    log_.confirmation(kVia, agent, tool, false, "input_required:" + how);
    return answer(result(*m.id, tool_error(not_confirmed(how), has_output_schema(tool, revision), revision)));
  }
  // Accepted: the same arguments plus the commit token the state sealed, which the gate redeems.
  // Another front may have issued it: the verified state enters it here (once per front).
  calls_.adopt_commit_token(opened->commit_token, CommitBinding{opened->caller, opened->tool, opened->arguments_hash},
                            opened->expires_ms);
  json::Document confirmed(rapidjson::kObjectType);
  auto& a = confirmed.GetAllocator();
  confirmed.CopyFrom(args, a);
  confirmed.AddMember(json::string_value(kCommitTokenArgument, a), json::string_value(opened->commit_token, a), a);
  dispatch(fleet, ResolvedCall{ResolvedCall::Action::kCall, &tool, &confirmed, {}, {}}, m, caller, session,
           scheduler, std::move(answer), "input_required:accept");
}

void McpMethods::confirm_by_elicitation(std::shared_ptr<const FleetTool> tool, const std::string& commit_token,
                                        const json::Value* arguments, const RpcMessage& m,
                                        const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                                                                                const std::shared_ptr<Scheduler>& scheduler, Answer answer) {
  // The repeat: the same arguments plus the token, marked so the audit says who confirmed.
  auto confirmed = std::make_shared<json::Document>(rapidjson::kObjectType);
  auto& a = confirmed->GetAllocator();
  if (arguments != nullptr && arguments->IsObject()) confirmed->CopyFrom(*arguments, a);
  const std::string message = confirmation_message(*tool, json::to_string(*confirmed));
  confirmed->AddMember(json::string_value(kCommitTokenArgument, a), json::string_value(commit_token, a), a);
  auto request = std::make_shared<json::Document>();
  request->CopyFrom(*m.id, request->GetAllocator());
  const std::string call_key = id_key(*m.id);
  auto timer = std::make_shared<std::unique_ptr<Timer>>();
  std::string key;
  const std::string question = elicitations_.ask(
      session->id(), message,
      [this, tool, confirmed, request, call_key, timer, agent, session, scheduler, answer](ElicitationAnswer reply) {
        scheduler->post([this, tool, confirmed, request, call_key, timer, agent, session, scheduler, answer, reply] {
          timer->reset();
          session->untrack(call_key);  // answered: from here on the call's own path answers it
          RpcMessage m;
          m.kind = RpcKind::kRequest;
          m.id = request.get();
          if (reply != ElicitationAnswer::kAccept) {
            log_.confirmation(kVia, *agent, *tool, false, "elicitation:" + std::string(elicitation_answer_name(reply)));
            const ErrorEnvelope denied = not_confirmed(elicitation_answer_name(reply));
            return answer(result(*request, tool_error(denied, has_output_schema(*tool, session->revision()),
                                                      session->revision())));
          }
          // The fleet may have changed while the human thought: is the confirmed tool still there?
          const auto fleet = fleet_.snapshot();
          const FleetTool* same = fleet->same_tool(agent->tenant, *tool);
          if (same == nullptr) return refuse(unknown_tool(tool->canonical_name), *request, *agent, session->revision(), answer);
          dispatch(fleet, ResolvedCall{ResolvedCall::Action::kCall, same, confirmed.get(), {}, {}}, m, agent, session,
                   scheduler, answer, "elicitation:accept");
        });
      },
      key);
  *timer = scheduler->after(kElicitationTimeout, [this, key] { elicitations_.abandon(key); });
  // While the user decides, the session's end (or the client's cancel) answers the call at once and
  // withdraws the question (issue 33, item 2): nothing has reached the device.
  session->track(call_key, [this, key, tool, request, timer, agent, scheduler, answer, revision = session->revision(),
                            asked_at = steady_ms_()](std::optional<SessionEnd> ended) {
    if (!elicitations_.withdraw(key)) return;  // the user's answer (or the timeout) came first and answers it
    scheduler->post([this, tool, request, timer, agent, answer, revision, ended, asked_at] {
      timer->reset();
      if (!ended) {
        log_.cancelled(kVia, *agent, *tool, steady_ms_() - asked_at);
        return answer(std::nullopt);  // notifications/cancelled: no response
      }
      const ErrorEnvelope e = session_end_error(*ended, EndedCall::kNotSent);
      log_.refused(kVia, agent.get(), tool->canonical_name, tool.get(), e);
      answer(result(*request, tool_error(e, has_output_schema(*tool, revision), revision)));
    });
  });
  session->notify(question);
}

void McpMethods::fleet_read(const std::shared_ptr<const FleetSnapshot>& fleet, const FleetReadPlan& plan,
                            const RpcMessage& m, const SharedAgentToken& caller, const std::shared_ptr<McpSession>& session,
                            const std::shared_ptr<Scheduler>& scheduler, Answer answer) {
  const McpRevision revision = session->revision();
  auto admitted = FleetReadRun::admit(calls_, *fleet, *caller, plan);
  if (!admitted) return refuse(admitted.error(), *m.id, *caller, revision, answer);
  const std::shared_ptr<FleetReadRun> run = *admitted;
  auto id = std::make_shared<json::Document>();
  id->CopyFrom(*m.id, id->GetAllocator());
  const std::string key = id_key(*m.id);
  // The last node's answer answers, unless the session's end (or a cancel) already did.
  session->track(key, [run, id, scheduler, answer, revision](std::optional<SessionEnd> ended) {
    scheduler->post([run, id, answer, revision, ended] {
      if (!run->stop()) return;
      if (!ended) return answer(std::nullopt);  // notifications/cancelled
      const ErrorEnvelope e = session_end_error(*ended, EndedCall::kRead);  // fleet_read only reads
      answer(RpcAnswer{200, rpc_result(*id, tool_error(e, has_structured_output(revision), revision)), {}});
    });
  });
  run->start(kVia, scheduler, caller, fleet, [id, revision, answer, session, key](json::Document results) {
    session->untrack(key);
    answer(RpcAnswer{200, rpc_result(*id, tool_success(results, json::to_string(results), revision)), {}});
  });
}

void McpMethods::run_unary(const std::shared_ptr<const FleetSnapshot>& fleet, GatePass pass, const RpcMessage& m,
                           const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                           const std::shared_ptr<Scheduler>& scheduler, Answer answer) {
  // How the call is answered, shared by its end and its cancellation (the callbacks are moved and
  // copied on their way through the call path).
  struct Reply {
    Answer answer;
    std::string key;  // the JSON-RPC id's text, also the id as the answer writes it
    McpRevision revision;
    bool output_schema;
  };
  const FleetTool& tool = *pass.tool;
  const bool reads = tool.verb_class() == SafetyClass::kReadOnly;
  const auto r = std::make_shared<const Reply>(
      Reply{std::move(answer), id_key(*m.id), session->revision(), has_output_schema(tool, session->revision())});
  // The call's one answer: the device's result, the deadline's, or its session's end.
  auto call = calls_.start(kVia, scheduler, agent, fleet, std::move(pass),
                           [this, r, session, node = tool.name.node_id](CallResult result) {
    session->untrack(r->key);
    r->answer(RpcAnswer{200,
                        result ? success(r->key, *result, r->revision, session->tenant(), node)
                               : rpc_result(r->key, tool_error(result.error(), r->output_schema, r->revision)),
                        {}});
  });
  session->track(r->key, [weak = std::weak_ptr<InFlightCall>(call), scheduler, r, reads](std::optional<SessionEnd> ended) {
    scheduler->post([weak, r, reads, ended] {
      const auto call = weak.lock();
      if (!call) return;  // already answered
      if (ended) {
        // The session is gone, the HTTP request is not: answer it (the device's late outcome is
        // dropped, as after a deadline).
        call->end(session_end_error(*ended, reads ? EndedCall::kRead : EndedCall::kActing));
      } else if (call->cancel()) {
        r->answer(std::nullopt);  // notifications/cancelled: no response
      }
    });
  });
}

void McpMethods::open_stream(const FleetTool& tool, const json::Value* arguments, const RpcMessage& m,
                             const AgentToken& agent, const std::shared_ptr<McpSession>& session,
                             const std::shared_ptr<Scheduler>& scheduler, Answer& answer) {
  const McpRevision revision = session->revision();
  static const json::Value kNoArguments(rapidjson::kObjectType);
  const json::Value& args = arguments != nullptr ? *arguments : kNoArguments;
  McpMetricsRequest request;
  request.interval_ms = std::clamp(json::get_int64(args, "interval_ms").value_or(kMetricsDefaultIntervalMs),
                                   kMetricsMinIntervalMs, kMetricsMaxIntervalMs);
  request.include = metrics_sections(json::find(args, "include"));
  request.revision = revision;
  if (is_stateless(revision)) {
    // No stream can carry this call's samples after its answer (docs/http-front.md "Metrics over
    // MCP"): the answer holds nothing and names the metrics resource to subscribe to instead, so
    // any front can answer it and any front can serve the subscription.
    const std::string uri = metrics_uri(tool.name.node_id, request.interval_ms, request.include);
    json::Document lease(rapidjson::kObjectType);
    auto& a = lease.GetAllocator();
    lease.AddMember("interval_ms", request.interval_ms, a);
    lease.AddMember("lease_expires_at_ms", wall_ms_() + options_.mcp_max_stream.count(), a);
    const std::string text =
        "No samples come with this call: on MCP 2026-07-28 subscribe to the resource " + uri +
        " by naming it in notifications.resourceSubscriptions of a subscriptions/listen request. Every " +
        std::to_string(request.interval_ms) + " ms a notifications/resources/updated for that URI carries a sample of node " +
        tool.name.node_id + " in _meta[\"" + std::string(kSampleMetaKey) + "\"], for at most " +
        std::to_string(options_.mcp_max_stream.count() / 1000) + " s (lease_expires_at_ms counts from now); a last one with _meta[\"" +
        std::string(kErrorMetaKey) + "\"] says why the subscription ended (node offline, token, maximum duration). "
        "Closing the listen stream stops it; resources/read of the URI reads one sample now.";
    log_.finished(kVia, agent, tool, CallResult(json::to_string(lease)), 0);
    return answer(result(*m.id, tool_success(lease, text, revision)));
  }
  const std::string key = id_key(*m.id);
  const auto subscription = start_metrics(tool, request, agent, session, scheduler, key);
  if (!subscription) {
    // An execution error (docs/protocol.md §9, D14): a result the model reads, not an HTTP 429.
    const ErrorEnvelope e = stream_quota_error();
    log_.refused(kVia, &agent, tool.canonical_name, &tool, e);
    return answer(result(*m.id, tool_error(e, has_output_schema(tool, revision), revision)));
  }
  answer(result(*m.id, subscription->started_result(session->streaming())));
}

std::shared_ptr<McpMetricsStream> McpMethods::start_metrics(const FleetTool& tool, const McpMetricsRequest& request,
                                                            const AgentToken& agent,
                                                            const std::shared_ptr<McpSession>& session,
                                                            const std::shared_ptr<Scheduler>& scheduler,
                                                            const std::string& key) {
  // The stream quota, and the token re-checks that end the subscription with its token
  // (open_streams.h), as for RFC-0009 and GET streams.
  auto stream = std::make_shared<std::weak_ptr<McpMetricsStream>>();
  std::shared_ptr<OpenStreams::Ticket> ticket = streams_.open(agent, wall_ms_(), [stream](StreamStop why) {
    if (const auto s = stream->lock()) s->stop(stream_stop_error(why));
  });
  if (!ticket) return nullptr;
  const int64_t started = steady_ms_();
  metrics_.stream_opened(StreamKind::kMcpCall);
  // The session holds the subscription, and the ticket lives as long as the ended callback: until
  // the subscription has ended.
  const auto subscription = McpMetricsStream::open(
      scheduler, session, fanout_, tool, agent.tenant, request, options_.mcp_max_stream, wall_ms_,
      [this, session, key, tool, agent, started, ticket](std::string_view code) {
        session->untrack(key);
        metrics_.stream_closed(StreamKind::kMcpCall);
        log_.stream_ended(kVia, agent, tool, code, steady_ms_() - started);
      });
  *stream = subscription;
  session->track(key, [subscription](std::optional<SessionEnd>) { subscription->cancel(); });
  return subscription;
}

}  // namespace fleetmcp::http
