#include "broker_plugin/http/mcp/mcp_methods.h"

#include <mutex>

#include "broker_plugin/http/surface/fleet_read.h"
#include "broker_plugin/http/rfc0009/mcp_metrics_stream.h"
#include "broker_plugin/http/calls/pending_call.h"
#include "broker_plugin/http/surface/tool_hints.h"
#include "broker_plugin/http/surface/tool_result.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kVia = "mcp";

RpcAnswer result(const json::Value& id, const json::Value& r) { return RpcAnswer{200, rpc_result(id, r), {}}; }

RpcAnswer error(const json::Value& id, int code, std::string_view message, const ErrorEnvelope* envelope = nullptr) {
  return RpcAnswer{200, rpc_error(&id, code, message, envelope), {}};
}

const json::Value* member(const json::Value* object, std::string_view key) {
  return object != nullptr && object->IsObject() ? json::find(*object, key) : nullptr;
}

bool has_output_schema(const FleetTool& tool, McpRevision revision) {
  return has_structured_output(revision) && !tool.verb.output_schema.empty();
}

}  // namespace

json::Document McpMethods::initialize_result(McpRevision revision) const {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("protocolVersion", json::string_value(revision_name(revision), a), a);
  json::Value caps(rapidjson::kObjectType), tools(rapidjson::kObjectType);
  tools.AddMember("listChanged", true, a);
  caps.AddMember("tools", tools, a);
  caps.AddMember("logging", json::Value(rapidjson::kObjectType), a);  // metrics samples are log messages
  json::Value resources(rapidjson::kObjectType);  // node manifests (node_resources.h)
  resources.AddMember("subscribe", true, a);
  resources.AddMember("listChanged", false, a);
  caps.AddMember("resources", resources, a);
  d.AddMember("capabilities", caps, a);
  json::Value info(rapidjson::kObjectType);
  info.AddMember("name", "fleetmcp", a);
  if (has_structured_output(revision)) info.AddMember("title", "fleetmcp device fleet", a);
  info.AddMember("version", "0.1.0", a);
  d.AddMember("serverInfo", info, a);
  d.AddMember("instructions",
              "Tools act on the devices of your tenant's fleet. Names are {kind_short}.{node_id}.{cap_id}.{verb} "
              "(or with '-' instead of '.'). Failures come back as results with isError and an error envelope "
              "{code, message, suggested_fix, retry_after_ms}: follow suggested_fix.",
              a);
  return d;
}

void McpMethods::request(const RpcMessage& m, const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                         const std::shared_ptr<Exchange>& exchange, const std::shared_ptr<Scheduler>& scheduler,
                         Answer answer) {
  const json::Value& id = *m.id;
  if (m.method == "ping") {
    answer(result(id, json::Value(rapidjson::kObjectType)));
  } else if (m.method == "tools/list") {
    tools_list(m, *agent, *session, answer);
  } else if (m.method == "tools/call") {
    tools_call(m, agent, session, exchange, scheduler, std::move(answer));
  } else if (m.method.starts_with("resources/")) {
    resources_request(m, *agent, session, answer);
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

void McpMethods::resources_request(const RpcMessage& m, const AgentToken& agent,
                                   const std::shared_ptr<McpSession>& session, Answer& answer) {
  const json::Value& id = *m.id;
  const auto fleet = s_.fleet.snapshot();
  const auto text = [&](std::string_view key) {
    const json::Value* v = member(m.params, key);
    return v != nullptr && v->IsString() ? std::optional<std::string>(std::string(v->GetString(), v->GetStringLength()))
                                         : std::nullopt;
  };
  const auto not_found = [&](const std::optional<std::string>& uri) {
    answer(error(id, rpc::kResourceNotFound, "Resource not found: " + ascii_clamp(uri.value_or(""), 200)));
  };
  if (m.method == "resources/templates/list") return answer(result(id, s_.resources.templates_result()));
  if (m.method == "resources/list") {
    const auto page = s_.resources.list_result(*fleet, agent.tenant, text("cursor"));
    if (!page) return answer(error(id, rpc::kInvalidParams, "Invalid params: the cursor is not one this server issued"));
    return answer(result(id, *page));
  }
  const auto uri = text("uri");
  if (!uri) return answer(error(id, rpc::kInvalidParams, "Invalid params: uri is required"));
  if (m.method == "resources/read") {
    const auto read = s_.resources.read_result(*fleet, agent.tenant, *uri);
    return read ? answer(result(id, *read)) : not_found(uri);
  }
  if (m.method == "resources/subscribe") {
    return s_.resources.subscribe(*fleet, session, *uri) ? answer(result(id, json::Value(rapidjson::kObjectType)))
                                                          : not_found(uri);
  }
  if (m.method == "resources/unsubscribe") {
    s_.resources.unsubscribe(*session, *uri);
    return answer(result(id, json::Value(rapidjson::kObjectType)));
  }
  answer(error(id, rpc::kMethodNotFound, "Method not found: " + std::string(m.method)));
}

void McpMethods::notification(const RpcMessage& m, McpSession& session) {
  if (m.method != "notifications/cancelled") return;  // initialized and the rest need nothing
  if (const json::Value* id = member(m.params, "requestId")) session.cancel(id_key(*id));
}

void McpMethods::tools_list(const RpcMessage& m, const AgentToken& agent, McpSession& session, Answer& answer) {
  const json::Value& id = *m.id;
  if (s_.options.tools_mode == ToolsMode::kCompact) {
    answer(result(id, s_.compact.list_result(session.revision())));
    return;
  }
  if (s_.options.tools_mode == ToolsMode::kByKind) {  // a few dozen tools at most: one page
    answer(result(id, s_.kinds.list_result(*s_.fleet.snapshot(), agent.tenant, session.revision())));
    return;
  }
  std::optional<std::string> cursor;
  if (const json::Value* c = member(m.params, "cursor")) {
    if (!c->IsString()) {
      answer(error(id, rpc::kInvalidParams, "Invalid params: cursor must be a string"));
      return;
    }
    cursor = std::string(c->GetString(), c->GetStringLength());
  }
  const auto fleet = s_.fleet.snapshot();
  const auto page = s_.catalog.list_page(*fleet, agent.tenant, cursor, session.revision());
  if (!page) {
    answer(error(id, rpc::kInvalidParams, "Invalid params: the cursor is not one this server issued"));
    return;
  }
  answer(result(id, *page));
}

void McpMethods::tools_call(const RpcMessage& m, const SharedAgentToken& caller, const std::shared_ptr<McpSession>& session,
                            const std::shared_ptr<Exchange>& exchange, const std::shared_ptr<Scheduler>& scheduler,
                            Answer answer) {
  const AgentToken& agent = *caller;
  const json::Value& id = *m.id;
  const auto name = m.params && m.params->IsObject() ? json::get_string(*m.params, "name") : std::nullopt;
  if (!name) {
    answer(error(id, rpc::kInvalidParams, "Invalid params: tools/call needs a name"));
    return;
  }
  const McpRevision revision = session->revision();
  const auto fleet = s_.fleet.snapshot();
  std::string tool_name(*name);
  const json::Value* arguments = member(m.params, "arguments");
  std::string_view arguments_at;  // where the gate's arguments sit in params.arguments
  if (tool_name == kFindNodesTool) return answer(result(id, s_.compact.find_nodes(*fleet, agent.tenant, arguments, revision)));
  if (tool_name == kDescribeNodeTool) {
    return answer(result(id, s_.compact.describe_node(*fleet, agent.tenant, arguments, revision)));
  }
  if (tool_name == kFleetReadTool) return fleet_read(m, agent, arguments, session, scheduler, std::move(answer));
  if (tool_name.find_first_of(".-") == std::string::npos && !CompactTools::is_fleet_tool(tool_name)) {
    // A by_kind tool (system_echo_invoke): callable in every mode, like the projected names.
    auto target = s_.kinds.call_target(*fleet, agent.tenant, tool_name, arguments);
    if (auto* bad = std::get_if<ErrorEnvelope>(&target)) {
      s_.log.refused(kVia, &agent, tool_name, nullptr, *bad);
      return answer(result(id, tool_error(*bad, has_structured_output(revision), revision)));
    }
    tool_name = std::get<CompactTools::Target>(target).tool_name;
    arguments = std::get<CompactTools::Target>(target).arguments;
    arguments_at = std::get<CompactTools::Target>(target).arguments_at;
  }
  if (tool_name == kFleetCallTool) {
    auto target = s_.compact.call_target(*fleet, agent.tenant, arguments, revision);
    if (auto* bad = std::get_if<json::Document>(&target)) return answer(result(id, *bad));
    tool_name = std::get<CompactTools::Target>(target).tool_name;
    arguments = std::get<CompactTools::Target>(target).arguments;
    arguments_at = std::get<CompactTools::Target>(target).arguments_at;
  }
  dispatch(fleet, tool_name, arguments, m, caller, session, exchange, scheduler, std::move(answer), arguments_at);
}

void McpMethods::dispatch(const std::shared_ptr<const FleetSnapshot>& fleet, const std::string& tool_name,
                          const json::Value* arguments, const RpcMessage& m, const SharedAgentToken& caller,
                          const std::shared_ptr<McpSession>& session, const std::shared_ptr<Exchange>& exchange,
                          const std::shared_ptr<Scheduler>& scheduler, Answer answer, std::string_view arguments_at,
                          std::string_view confirmed_by) {
  const AgentToken& agent = *caller;
  const json::Value& id = *m.id;
  const McpRevision revision = session->revision();
  GateDecision decision = s_.gate.admit(*fleet, agent, tool_name, arguments, s_.wall_ms(), arguments_at);
  if (auto* refusal = std::get_if<GateRefusal>(&decision);
      refusal != nullptr && !refusal->commit_token.empty() && confirmed_by.empty() && s_.elicitations.can_ask(*session)) {
    // The first phase of a two-phase call, from a client that can ask its human: ask, and on
    // accept repeat the call with the token the gate just issued.
    return confirm_by_elicitation(*refusal->tool, refusal->commit_token, arguments, m, caller, session, exchange,
                                  scheduler, std::move(answer));
  }
  if (auto* refusal = std::get_if<GateRefusal>(&decision)) {
    s_.log.refused(kVia, &agent, tool_name, refusal->tool, refusal->error);
    switch (refusal->kind) {
      case RefusalKind::kUnknownTool:
        answer(error(id, rpc::kInvalidParams, refusal->error.message, &refusal->error));
        break;
      case RefusalKind::kScope:
        // MCP authorization: a runtime scope shortfall is HTTP 403 with a step-up challenge.
        answer(RpcAnswer{403, rpc_error(&id, rpc::kInvalidRequest, refusal->error.message, &refusal->error),
                         {{"WWW-Authenticate", s_.resource.challenge("insufficient_scope", refusal->error.message,
                                                                     refusal->required_scope)}}});
        break;
      case RefusalKind::kExecution:
        answer(result(id, tool_error(refusal->error, has_output_schema(*refusal->tool, revision), revision)));
        break;
    }
    return;
  }
  auto& pass = std::get<GatePass>(decision);
  if (pass.confirmed_by_commit_token) {
    s_.log.confirmation(kVia, agent, *pass.tool, true, confirmed_by.empty() ? "commit_token" : confirmed_by);
  }
  if (is_metrics_stream(*pass.tool)) {
    if (!exchange) {
      answer(error(id, rpc::kInvalidRequest, "Invalid Request: a streaming tool cannot be called inside a batch"));
      return;
    }
    open_stream(*pass.tool, pass.arguments_json, m, agent, session, exchange, answer);
    return;
  }
  // The call holds on to the snapshot its tool points into rather than copying the tool: a
  // snapshot shares all but what changed with the next one (fleet_view.h), so this keeps little.
  run_unary(std::shared_ptr<const FleetTool>(fleet, pass.tool), std::move(pass.arguments_json), std::move(pass.slot), m,
            caller, session, scheduler, std::move(answer));
}

void McpMethods::confirm_by_elicitation(const FleetTool& tool, const std::string& commit_token,
                                        const json::Value* arguments, const RpcMessage& m,
                                        const SharedAgentToken& agent, const std::shared_ptr<McpSession>& session,
                                        const std::shared_ptr<Exchange>& exchange,
                                        const std::shared_ptr<Scheduler>& scheduler, Answer answer) {
  // The repeat: the same arguments plus the token, marked so the audit says who confirmed.
  auto confirmed = std::make_shared<json::Document>(rapidjson::kObjectType);
  auto& a = confirmed->GetAllocator();
  if (arguments != nullptr && arguments->IsObject()) confirmed->CopyFrom(*arguments, a);
  const std::string shown = json::to_string(*confirmed);
  confirmed->AddMember(json::string_value(kCommitTokenArgument, a), json::string_value(commit_token, a), a);
  const std::string message = "Confirm physical actuation: " + tool.kind + " " + tool.name.verb + " on device " +
                              tool.name.node_id + " (capability " + tool.name.cap_id + ") with arguments " +
                              ascii_clamp(shown, 400) + ". Accept to run it now; decline or cancel to refuse.";
  auto request = std::make_shared<json::Document>();
  request->CopyFrom(*m.id, request->GetAllocator());
  auto timer = std::make_shared<std::unique_ptr<Timer>>();
  std::string key;
  const std::string tool_name = tool.name.dotted();
  const std::string question = s_.elicitations.ask(
      session->id(), message,
      [this, tool, tool_name, confirmed, request, timer, agent, session, exchange, scheduler,
       answer](ElicitationAnswer reply) {
        scheduler->post([this, tool, tool_name, confirmed, request, timer, agent, session, exchange, scheduler, answer,
                         reply] {
          timer->reset();
          RpcMessage m;
          m.kind = RpcKind::kRequest;
          m.id = request.get();
          if (reply != ElicitationAnswer::kAccept) {
            s_.log.confirmation(kVia, *agent, tool, false, "elicitation:" + std::string(elicitation_answer_name(reply)));
            const ErrorEnvelope denied(ErrorCode::kSafetyDenied,
                                       "the user did not confirm this physical actuation (" +
                                           std::string(elicitation_answer_name(reply)) + ")",
                                       "ask the user before trying again; nothing was sent to the device");
            return answer(result(*request, tool_error(denied, has_output_schema(tool, session->revision()),
                                                      session->revision())));
          }
          const auto fleet = s_.fleet.snapshot();
          dispatch(fleet, tool_name, confirmed.get(), m, agent, session, exchange, scheduler, answer, {},
                   "elicitation:accept");
        });
      },
      key);
  *timer = scheduler->after(kElicitationTimeout, [this, key] { s_.elicitations.abandon(key); });
  session->notify(question);
}

void McpMethods::fleet_read(const RpcMessage& m, const AgentToken& agent, const json::Value* arguments,
                            const std::shared_ptr<McpSession>& session, const std::shared_ptr<Scheduler>& scheduler,
                            Answer answer) {
  const McpRevision revision = session->revision();
  const auto fleet = s_.fleet.snapshot();
  auto planned = plan_fleet_read(*fleet, agent.tenant, arguments);
  if (auto* bad = std::get_if<ErrorEnvelope>(&planned)) {
    s_.log.refused(kVia, &agent, kFleetReadTool, nullptr, *bad);
    return answer(result(*m.id, tool_error(*bad, has_structured_output(revision), revision)));
  }
  const FleetReadPlan& plan = std::get<FleetReadPlan>(planned);
  // Shared by the node calls; the last one to finish answers, unless the session's end (or a
  // cancel) already did.
  struct Run {
    std::mutex mutex;
    FleetReadResults results;
    size_t remaining;
    json::Document id;
    bool answered = false;
    Run(const FleetReadPlan& p, size_t n) : results(p), remaining(n) {}
  };
  auto run = std::make_shared<Run>(plan, plan.targets.size() + 1);  // +1: the loop below
  run->id.CopyFrom(*m.id, run->id.GetAllocator());
  const std::string key = id_key(*m.id);
  auto one_done = [run, revision, answer, session, key](auto record) {
    std::lock_guard<std::mutex> lock(run->mutex);
    record(run->results);
    if (--run->remaining > 0 || std::exchange(run->answered, true)) return;
    session->untrack(key);
    const json::Document doc = run->results.document();
    answer(RpcAnswer{200, rpc_result(run->id, tool_success(doc, json::to_string(doc), revision)), {}});
  };
  session->track(key, [run, scheduler, answer, revision](std::optional<SessionEnd> ended) {
    scheduler->post([run, answer, revision, ended] {
      std::lock_guard<std::mutex> lock(run->mutex);
      if (std::exchange(run->answered, true)) return;
      if (!ended) return answer(std::nullopt);  // notifications/cancelled
      const ErrorEnvelope e = session_end_error(*ended, true);  // fleet_read only reads
      answer(RpcAnswer{200, rpc_result(run->id, tool_error(e, has_structured_output(revision), revision)), {}});
    });
  });
  const json::Document args = json::parse_strict(plan.arguments_json, ErrorCode::kInternal);
  for (size_t i = 0; i < plan.targets.size(); ++i) {
    const FleetReadTarget& target = plan.targets[i];
    if (target.tool.empty()) {
      ErrorEnvelope none(ErrorCode::kManifestNotFound, target.problem, "fleet_find_nodes lists your nodes and their kinds");
      one_done([i, none](FleetReadResults& r) { r.set_error(i, none); });
      continue;
    }
    GateDecision decision = s_.gate.admit(*fleet, agent, target.tool, &args, s_.wall_ms());
    if (auto* refusal = std::get_if<GateRefusal>(&decision)) {
      s_.log.refused(kVia, &agent, target.tool, refusal->tool, refusal->error);
      one_done([i, e = refusal->error](FleetReadResults& r) { r.set_error(i, e); });
      continue;
    }
    auto& pass = std::get<GatePass>(decision);
    CallSpec spec{agent.sub, agent.tenant, target.tool, std::move(pass.arguments_json),
                  gateway_deadline(pass.tool->constraints)};
    const int64_t started = s_.steady_ms();
    PendingCall::start(s_.fleet, scheduler, std::move(spec),
                       [this, i, one_done, tool = *pass.tool, slot = pass.slot, agent, started](CallOutcome outcome) {
                         if (slot) slot->release();
                         s_.log.finished(kVia, agent, tool, outcome, s_.steady_ms() - started);
                         one_done([i, &outcome](FleetReadResults& r) {
                           if (outcome.ok) r.set_result(i, outcome.result_json);
                           else r.set_error(i, outcome.error);
                         });
                       });
  }
  one_done([](FleetReadResults&) {});
}

void McpMethods::run_unary(std::shared_ptr<const FleetTool> tool, std::string arguments_json,
                           std::shared_ptr<ConcurrencySlot> slot, const RpcMessage& m, const SharedAgentToken& agent,
                           const std::shared_ptr<McpSession>& session, const std::shared_ptr<Scheduler>& scheduler,
                           Answer answer) {
  CallSpec spec{agent->sub, agent->tenant, tool->name.dotted(), std::move(arguments_json),
                gateway_deadline(tool->constraints)};
  // What the answer and the cancellation both need, shared (the callbacks are moved and copied on
  // their way through the call path).
  struct Unary {
    std::shared_ptr<const FleetTool> tool;
    SharedAgentToken agent;
    int64_t started;
    std::shared_ptr<ConcurrencySlot> slot;
    Answer answer;
    std::string key;  // the JSON-RPC id's text, also the id as the answer writes it
    McpRevision revision;
  };
  const auto u = std::make_shared<const Unary>(Unary{std::move(tool), agent, s_.steady_ms(), std::move(slot),
                                                     std::move(answer), id_key(*m.id), session->revision()});
  // The call's one answer: the device's outcome, the deadline's, or its session's end.
  const auto finish = [this](const Unary& u, const CallOutcome& outcome) {
    if (u.slot) u.slot->release();
    s_.log.finished(kVia, *u.agent, *u.tool, outcome, s_.steady_ms() - u.started);
    u.answer(RpcAnswer{200,
                       outcome.ok ? rpc_tool_success(u.key, outcome.result_json, u.revision)
                                  : rpc_result(u.key, tool_error(outcome.error, has_output_schema(*u.tool, u.revision), u.revision)),
                       {}});
  };
  auto call = PendingCall::start(s_.fleet, scheduler, std::move(spec), [finish, u, session](CallOutcome outcome) {
    session->untrack(u->key);
    finish(*u, outcome);
  });
  session->track(u->key, [this, weak = std::weak_ptr<PendingCall>(call), scheduler, u, finish](std::optional<SessionEnd> ended) {
    scheduler->post([this, weak, u, finish, ended] {
      const auto call = weak.lock();
      if (!call || !call->cancel()) return;  // already answered
      if (ended) {
        // The session is gone, the HTTP request is not: answer it (the device's late outcome is
        // dropped, as after a deadline).
        CallOutcome outcome;
        outcome.error = session_end_error(*ended, tool_hints(u->tool->safety_class, u->tool->name.verb).read_only);
        return finish(*u, outcome);
      }
      if (u->slot) u->slot->release();
      s_.log.cancelled(kVia, *u->agent, *u->tool, s_.steady_ms() - u->started);
      u->answer(std::nullopt);
    });
  });
}

void McpMethods::open_stream(const FleetTool& tool, const std::string& arguments_json, const RpcMessage& m,
                             const AgentToken& agent, const std::shared_ptr<McpSession>& session,
                             const std::shared_ptr<Exchange>& exchange, Answer& answer) {
  // The stream quota, and the token re-checks that end the stream with its token (open_streams.h),
  // as for RFC-0009 and GET streams: a metrics stream holds a connection as long as they do.
  auto stream = std::make_shared<std::weak_ptr<McpMetricsStream>>();
  std::shared_ptr<OpenStreams::Ticket> ticket = s_.streams.open(agent, s_.wall_ms(), [stream](StreamStop why) {
    if (const auto s = stream->lock()) s->stop(stream_stop_error(why));
  });
  if (!ticket) {
    // An execution error (docs/protocol.md §9, D14): a result the model reads, not an HTTP 429.
    const ErrorEnvelope e = stream_quota_error();
    s_.log.refused(kVia, &agent, tool.name.dotted(), &tool, e);
    return answer(result(*m.id, tool_error(e, has_output_schema(tool, session->revision()), session->revision())));
  }
  const json::Document args = json::parse_strict(arguments_json, ErrorCode::kInternal);
  McpMetricsRequest request;
  request.id.CopyFrom(*m.id, request.id.GetAllocator());
  if (const json::Value* token = member(member(m.params, "_meta"), "progressToken");
      token != nullptr && (token->IsString() || token->IsInt64())) {
    request.progress_token.CopyFrom(*token, request.progress_token.GetAllocator());
  }
  request.interval_ms = json::get_int64(args, "interval_ms").value_or(5000);
  request.include = metrics_sections(json::find(args, "include"));
  request.send_messages = session->logs("info");
  request.revision = session->revision();
  const std::string key = id_key(*m.id);
  const int64_t started = s_.steady_ms();
  s_.metrics.stream_opened(StreamKind::kMcpCall);
  // The ticket lives as long as the ended callback: until the stream has finished.
  *stream = McpMetricsStream::open(
      *exchange, s_.fanout, tool, agent.tenant, std::move(request), s_.options.mcp_max_stream,
      s_.options.mcp_stream_buffer, s_.wall_ms,
      [this, session, key, tool, agent, started, ticket](std::string_view code) {
        session->untrack(key);
        s_.metrics.stream_closed(StreamKind::kMcpCall);
        s_.log.stream_ended(kVia, agent, tool, code, s_.steady_ms() - started);
      });
  session->track(key, [weak = *stream](std::optional<SessionEnd> ended) {
    const auto s = weak.lock();
    if (!s) return;
    if (ended) s->stop(session_end_error(*ended, true));  // a subscription only reads
    else s->cancel();
  });
}

}  // namespace fleetmcp::http
