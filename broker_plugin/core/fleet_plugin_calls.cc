// The command path (docs/protocol.md §4): calls queued from any thread are dispatched on the tick as a
// `cmd` straight to the node's client (for a node on another broker: to the bridge), correlated with its `cmd_ack` by node and in_reply_to,
// checked against the tool's output schema and result.node_id (RFC-0005 §6 step 8), failed at
// once when the node's session ends, failed at the gateway deadline, and late acks dropped and
// audited. Also the opt-in $CONTROL/fleetmcp/v1 test driver.
#include "broker_plugin/core/fleet_plugin.h"

#include <algorithm>
#include <variant>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "broker_plugin/calls/device_error.h"
#include "broker_plugin/calls/control_api.h"
#include "common/protocol/cmd.h"
#include "common/protocol/deadlines.h"
#include "common/protocol/topics.h"
#include "common/crypto/agent_token.h"
#include "common/registry/kinds.h"
#include "common/ids/ulid.h"

namespace fleetmcp::plugin {
namespace {

ErrorEnvelope not_found(std::string_view tool) {
  // The same answer for "no such node", "another tenant's node" and "no such capability", so a
  // caller learns nothing about nodes it may not see.
  return ErrorEnvelope(ErrorCode::kManifestNotFound,
                       "no announced tool " + ascii_clamp(tool, 64) + " is visible to this caller",
                       "list the tools again; the node may have gone, expired or never existed for your tenant");
}

std::optional<ErrorEnvelope> check_arguments(const SchemaRegistry& schemas, const VerbSpec& verb,
                                             const json::Document& arguments) {
  if (const auto failure = schemas.validate(verb.input_schema, arguments)) {
    // RFC-0005 §8: arguments failing their schema are E_MANIFEST_INVALID, found before dispatch.
    return ErrorEnvelope(ErrorCode::kManifestInvalid,
                         "arguments do not match " + verb.input_schema + " at " + ascii_clamp(failure->path, 120) +
                             ": " + ascii_clamp(failure->message, 200),
                         "fix the arguments to match the tool's inputSchema");
  }
  return std::nullopt;
}

// docs/protocol.md §4.4: after a deadline a read may simply be retried. A call that changes state
// may have acted on the device (a node that does not check ts_ms may even act later), so
// repeating it could act twice: its caller must look first.
ErrorEnvelope deadline_exceeded(const PendingCall& call, const std::string& what) {
  if (!call.changes_state) {
    return ErrorEnvelope(ErrorCode::kDeadlineExceeded, what, "retry later; the node may be overloaded");
  }
  return ErrorEnvelope(ErrorCode::kDeadlineExceeded, what + "; the outcome is unknown: the command may have run",
                       "read the current state first (the capability's get or snapshot) and retry only if it did "
                       "not change");
}

}  // namespace

void FleetPlugin::dispatch_submitted(int64_t now_ms) {
  calls_.take_submitted(submitted_);
  for (CallRequest& request : submitted_) {
    if (auto error = dispatch(request, now_ms)) {
      PendingCall unsent;
      unsent.tool = request.tool;
      unsent.request = std::move(request);
      CallResult result;
      result.error = std::move(*error);
      finish_call(unsent, std::move(result));
    }
  }
  submitted_.clear();  // keeps its capacity for the inbox (take_submitted)
}

std::variant<FleetPlugin::CallTarget, ErrorEnvelope> FleetPlugin::resolve(const CallRequest& request, int64_t now_ms) const {
  const auto name = parse_tool_name(request.tool);
  if (!name) {
    return ErrorEnvelope(ErrorCode::kBadRequest, "not a tool name: expected {kind_short}.{node_id}.{cap_id}.{verb}",
                         "use a name from tools/list");
  }
  const KindSpec* kind = schemas_->kinds().by_short(name->kind_short);
  const NodeRecord* node = registry_.find(name->node_id);
  if (kind == nullptr || node == nullptr || node->tenant != request.tenant || node->revoked ||
      !node->manifest_fresh(now_ms)) {
    return not_found(request.tool);
  }
  const Capability* cap = node->manifest->capability(name->cap_id);
  if (cap == nullptr || cap->kind != kind->kind) return not_found(request.tool);
  const VerbSpec* verb = kind->verb(name->verb);
  if (verb == nullptr || std::find(cap->verbs.begin(), cap->verbs.end(), name->verb) == cap->verbs.end()) {
    return ErrorEnvelope(ErrorCode::kVerbUnsupported, "capability " + cap->cap_id + " does not offer verb " + name->verb,
                         "use a verb the capability announces");
  }
  const std::string_view scope = required_scope(cap->safety_class, name->verb);
  if ((request.scopes & scope_bit(scope).value_or(~0u)) == 0) {
    return ErrorEnvelope(ErrorCode::kSafetyDenied, "the caller's token lacks scope " + std::string(scope),
                         "ask the operator for a token with " + std::string(scope));
  }
  if (request.without_safeguards && scope == kScopeCallPhysical) {
    return ErrorEnvelope(ErrorCode::kSafetyDenied,
                         "physical actuation is refused on the $CONTROL test driver: it has no two-phase "
                         "confirmation and no rate limits",
                         "call the tool through the HTTP front (POST /mcp/tools/call or MCP tools/call)");
  }
  if (!node->live()) {
    return ErrorEnvelope(ErrorCode::kNodeOffline, "node " + node->node_id + " has no live session",
                         "retry when $devices/<node_id>/status says online");
  }
  return CallTarget{node, cap, verb, name->dotted()};
}

std::optional<ErrorEnvelope> FleetPlugin::dispatch(CallRequest& request, int64_t now_ms) {
  auto resolved = resolve(request, now_ms);
  if (auto* error = std::get_if<ErrorEnvelope>(&resolved)) return std::move(*error);
  CallTarget& target = std::get<CallTarget>(resolved);
  // The front's gate has parsed and validated the arguments it serialised (arguments_validated);
  // the others ($CONTROL) are parsed and validated here. Either way the text goes into the cmd as
  // it is.
  if (!request.arguments_validated) {
    json::Document arguments;
    try {
      arguments = json::parse_strict(request.arguments_json, ErrorCode::kBadRequest);
    } catch (const Error& e) {
      return e.envelope();
    }
    if (auto invalid = check_arguments(*schemas_, *target.verb, arguments)) return invalid;
  }

  PendingCall call;
  call.msg_id = new_msg_id();
  call.node_id = target.node->node_id;
  call.tool = std::move(target.tool);
  call.output_schema = target.verb->output_schema;
  call.changes_state = required_scope(target.capability->safety_class, target.verb->verb) != kScopeCallReadOnly;
  const int deadline_ms = target.capability->constraints.deadline_ms_default;
  const int64_t gateway_ms = gateway_deadline_ms(deadline_ms);
  call.deadline_at_ms = now_ms + gateway_ms;
  const std::string cmd = write_cmd(call.msg_id, now_ms, deadline_ms, call.tool, request.arguments_json);
  // Straight to the node's client (client id = node_id): no subscription or READ check involved.
  // A node on another broker is reached through the subscriptions, i.e. the bridge's. Once its
  // caller has the deadline's answer the broker drops the cmd rather than deliver it late
  // (message expiry, whole seconds rounded up; the node checks ts_ms too, §4.3 step 5).
  broker_.publish_expiring(target.node->remote ? std::string_view{} : std::string_view(call.node_id),
                           devices_topic(call.node_id, DeviceLeaf::kCmd), cmd, 1,
                           static_cast<uint32_t>((gateway_ms + 999) / 1000));
  call.request = std::move(request);
  calls_.add(std::move(call));
  return std::nullopt;
}

void FleetPlugin::on_cmd_ack(std::string_view node_id, std::string_view payload, bool over_bridge) {
  const auto ack = parse_cmd_ack(payload, *schemas_, ack_arena_);
  if (!ack) {
    bump(counters_.acks_malformed);
    audit({.caller = node_id, .node_id = node_id, .decision = "drop", .code = "E_BAD_REQUEST",
           .reason = "cmd_ack does not match cmd_ack@1.0.0"});
    return;
  }
  auto call = calls_.take_answered(node_id, ack->in_reply_to);
  if (!call) {
    const bool late = calls_.finished_recently(ack->in_reply_to);
    if (late) {
      bump(counters_.late_acks);
    } else if (over_bridge || calls_.relayed(ack->in_reply_to)) {
      return;  // another broker's call: its bridge carries the ack there
    } else {
      bump(counters_.acks_unmatched);
    }
    const std::string_view why = !late          ? "cmd_ack answers no call to this node"
                                 : ack->not_run ? "late cmd_ack for a call that already finished; the device did not "
                                                  "run it: the cmd arrived after its deadline"
                                                : "late cmd_ack for a call that already finished";
    audit({.caller = node_id, .node_id = node_id, .decision = "drop",
           .code = ack->ok ? std::string_view{} : error_code_name(ack->code), .reason = why});
    return;
  }
  CallResult result;
  if (!ack->ok) {
    const bool timed_out = ack->code == ErrorCode::kDeadlineExceeded && !ack->not_run;
    result.error = timed_out && call->changes_state
                       ? deadline_exceeded(*call, "the tool did not finish within its deadline on the device")
                       : templated_device_error(*ack);
  } else if (const auto failure = schemas_->validate(call->output_schema, *ack->result)) {
    result.error = ErrorEnvelope(ErrorCode::kInternal,
                                 "the device's result does not match " + std::string(call->output_schema) + " at " +
                                     ascii_clamp(failure->path, 120),
                                 "report the device's software version to the operator");
  } else if (const auto echoed = json::get_string(*ack->result, "node_id"); echoed && *echoed != node_id) {
    result.error = ErrorEnvelope(ErrorCode::kAttestationFailed,
                                 "the result names another node than the one called (result.node_id)",
                                 "treat the node as misbehaving; report it to the operator");
  } else {
    result.ok = true;
    result.result_json = json::to_string(*ack->result);
  }
  finish_call(*call, std::move(result));
}

void FleetPlugin::finish_call(PendingCall& call, CallResult result) {
  const int64_t now = clock_();
  if (!call.msg_id.empty()) calls_.remember_finished(call.msg_id, now);
  // The call ends here: its strings move into the result.
  result.node_id = std::move(call.node_id);
  result.tool = std::move(call.tool);
  result.msg_id = std::move(call.msg_id);
  result.latency_ms = now - call.request.submitted_at_ms;
  if (result.ok) {
    bump(counters_.calls_ok);
  } else {
    bump(result.error.code == ErrorCode::kDeadlineExceeded ? counters_.calls_timed_out : counters_.calls_failed);
  }
  if (!call.request.audited_by_caller) {
    audit({.caller = call.request.caller,
           .tenant = call.request.tenant,
           .tool = result.tool,
           .node_id = result.node_id,
           .decision = result.ok ? "ok" : "error",
           .code = result.ok ? std::string_view{} : error_code_name(result.error.code),
           .latency_ms = result.latency_ms});
  }
  if (!call.request.on_done) return;
  try {
    call.request.on_done(result);
  } catch (const std::exception& e) {
    broker_.log(LogLevel::kError, std::string("fleetmcp: a call completion handler failed: ") + e.what());
  }
}

void FleetPlugin::fail_calls_of(std::string_view node_id, ErrorCode code) {
  for (PendingCall& call : calls_.take_for_node(node_id)) {
    CallResult result;
    result.error = ErrorEnvelope(code, "node " + call.node_id + " went offline before answering",
                                 "retry when $devices/<node_id>/status says online");
    finish_call(call, std::move(result));
  }
}

void FleetPlugin::expire_calls(int64_t now_ms) {
  for (PendingCall& call : calls_.take_overdue(now_ms)) {
    CallResult result;
    result.error = deadline_exceeded(call, "node " + call.node_id + " did not answer in time");
    finish_call(call, std::move(result));
  }
}

void FleetPlugin::on_control(const ClientView& client, std::string_view payload) {
  const Session* session = sessions_.find(client.handle, client.id);
  if (session == nullptr || !session->principal || session->principal->kind != PrincipalKind::kAgent) return;
  const Principal agent = *session->principal;
  const std::string client_id(client.id);
  std::string id;
  ControlRequest request;
  try {
    request = parse_control_request(payload, &id);
  } catch (const Error& e) {
    broker_.publish(client_id, kControlResponseTopic, control_error(id, e.envelope()), 1, false);
    return;
  }
  if (const auto* command = std::get_if<ControlCommand>(&request)) {
    const bool counters = command->command == "counters";
    const std::string body = counters ? counters_.to_json() : nodes_json(agent);
    broker_.publish(client_id, kControlResponseTopic, control_command_answer(id, command->command, body), 1, false);
    return;
  }
  const auto& call = std::get<ControlCall>(request);
  CallRequest r;
  r.tool = call.tool;
  r.arguments_json = call.arguments_json;
  r.caller = agent.name;
  r.tenant = agent.tenant;
  r.scopes = agent.scopes;
  r.without_safeguards = true;
  r.on_done = [this, client_id, id](const CallResult& result) {
    const std::string answer = result.ok
                                   ? control_call_answer(id, result.tool, result.node_id, result.result_json, result.latency_ms)
                                   : control_error(id, result.error);
    broker_.publish(client_id, kControlResponseTopic, answer, 1, false);
  };
  // Already on the broker thread: the tick at the end of this loop turn dispatches it, no wake.
  bump(counters_.calls_submitted);
  calls_.submit(std::move(r), clock_(), /*wake=*/false);
}

std::string FleetPlugin::nodes_json(const Principal& agent) const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const int64_t now = clock_();
  w.StartArray();
  registry_.for_each([&](const NodeRecord& node) {
    if (node.tenant != agent.tenant) return;
    w.StartObject();
    w.Key("node_id");
    w.String(node.node_id.c_str());
    w.Key("state");
    w.String(std::string(node_state_name(node.state())).c_str());
    w.Key("tools");
    w.StartArray();
    if (node.manifest_fresh(now) && !node.revoked) {
      for (const Capability& cap : node.manifest->capabilities) {
        const KindSpec* kind = schemas_->kinds().by_kind(cap.kind);
        for (const std::string& verb : cap.verbs) {
          if (const auto name = kind ? make_tool_name(kind->kind_short, node.node_id, cap.cap_id, verb) : std::nullopt) {
            w.String(name->dotted().c_str());
          }
        }
      }
    }
    w.EndArray();
    w.EndObject();
  });
  w.EndArray();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace fleetmcp::plugin
