#include "broker_plugin/calls/call_dispatch.h"

#include <algorithm>

#include "broker_plugin/access/principal.h"
#include "broker_plugin/calls/device_error.h"
#include "common/crypto/agent_token.h"
#include "common/ids/ulid.h"
#include "common/protocol/cmd.h"
#include "common/protocol/cmd_ack.h"
#include "common/protocol/deadlines.h"
#include "common/protocol/topics.h"
#include "common/registry/kinds.h"

namespace fleetmcp::plugin {
namespace {

Status check_arguments(const SchemaRegistry& schemas, const VerbSpec& verb, std::string_view arguments_json) {
  const auto arguments = json::parse_strict(arguments_json, ErrorCode::kBadRequest);
  if (!arguments) return arguments.error();
  if (const auto failure = schemas.validate(verb.input_schema, *arguments)) {
    // RFC-0005 §8: arguments failing their schema are E_MANIFEST_INVALID, found before dispatch.
    return ErrorEnvelope(ErrorCode::kManifestInvalid,
                         "arguments do not match " + verb.input_schema + " at " + ascii_clamp(failure->path, 120) +
                             ": " + ascii_clamp(failure->for_sender(), 200),
                         failure->fix_for_sender("fix the arguments to match the tool's inputSchema"));
  }
  return {};
}

// `tool` is a canonical name {kind_short}.{node_id}.{cap_id}.{verb} of the kind `kind_short`.
bool names_kind(std::string_view tool, std::string_view kind_short) {
  return tool.size() > kind_short.size() && tool.starts_with(kind_short) && tool[kind_short.size()] == '.';
}

// docs/protocol.md §4.4: after a deadline a read may simply be retried. A call that changes state
// may have acted on the device (a node that does not check ts_ms may even act later), so
// repeating it could act twice: its caller must look first.
ErrorEnvelope deadline_exceeded(const SentCall& call, const std::string& what) {
  if (!call.changes_state) {
    return ErrorEnvelope(ErrorCode::kDeadlineExceeded, what, "retry later; the node may be overloaded");
  }
  return ErrorEnvelope(ErrorCode::kDeadlineExceeded, what + "; the outcome is unknown: the command may have run",
                       "read the current state first (the capability's get or snapshot) and retry only if it did "
                       "not change");
}

// What the caller gets of a node's cmd_ack (RFC-0005 §6 step 8): the result checked against the
// verb's output schema and result.node_id, or the device's error.
CallResult checked_result(const SchemaRegistry& schemas, const SentCall& call, std::string_view node_id,
                          const CmdAck& ack) {
  if (!ack.ok) {
    const bool timed_out = ack.code == ErrorCode::kDeadlineExceeded && !ack.not_run;
    return timed_out && call.changes_state
               ? deadline_exceeded(call, "the tool did not finish within its deadline on the device")
               : templated_device_error(ack);
  }
  if (const auto failure = schemas.validate(call.output_schema, *ack.result)) {
    return ErrorEnvelope(ErrorCode::kInternal,
                         "the device's result does not match " + std::string(call.output_schema) + " at " +
                             ascii_clamp(failure->path, 120),
                         "report the device's software version to the operator");
  }
  if (const auto echoed = json::get_string(*ack.result, "node_id"); echoed && *echoed != node_id) {
    return ErrorEnvelope(ErrorCode::kAttestationFailed,
                         "the result names another node than the one called (result.node_id)",
                         "treat the node as misbehaving; report it to the operator");
  }
  return json::to_string(*ack.result);
}

}  // namespace

ErrorEnvelope call_target_not_found(const CallRequest& request) {
  return ErrorEnvelope(ErrorCode::kManifestNotFound,
                       "no announced tool " + ascii_clamp(request.cap_id, 32) + "." + ascii_clamp(request.verb, 32) +
                           " on node " + ascii_clamp(request.node_id, 32) + " is visible to this caller",
                       "list the tools again; the node may have gone, expired or never existed for your tenant");
}

CallDispatch::CallDispatch(const NodeRegistry& registry, const SchemaRegistry& schemas, BrokerPort& broker,
                           const PluginClock& clock, AuditTrail& audit, PluginCounters& counters)
    : registry_(registry), schemas_(schemas), broker_(broker), clock_(clock), audit_(audit), counters_(counters) {}

void CallDispatch::dispatch_submitted(int64_t now_ms) {
  calls_.take_submitted(submitted_);
  for (QueuedCall& queued : submitted_) {
    if (Status sent = dispatch(queued, now_ms); !sent) {
      refuse(std::move(queued), {}, std::move(sent).error());
    }
  }
  submitted_.clear();  // keeps its capacity for the inbox (take_submitted)
}

Result<CallDispatch::Target> CallDispatch::resolve(const QueuedCall& queued, int64_t now_ms) const {
  const CallRequest& request = queued.request;
  const NodeRecord* node = registry_.find(request.node_id);
  if (node == nullptr || node->tenant != request.tenant || node->revoked || !node->manifest_fresh(now_ms)) {
    return call_target_not_found(request);
  }
  const Capability* cap = node->manifest->capability(request.cap_id);
  const KindSpec* kind = cap != nullptr ? schemas_.kinds().by_kind(cap->kind) : nullptr;
  // A capability announced again under another kind is another tool than the one resolved.
  if (kind == nullptr || !names_kind(request.tool, kind->kind_short)) return call_target_not_found(request);
  const VerbSpec* verb = kind->verb(request.verb);
  if (verb == nullptr || std::find(cap->verbs.begin(), cap->verbs.end(), request.verb) == cap->verbs.end()) {
    return ErrorEnvelope(ErrorCode::kVerbUnsupported,
                         "capability " + cap->cap_id + " does not offer verb " + ascii_clamp(request.verb, 32),
                         "use a verb the capability announces");
  }
  // The front's gate checked the token's scope and confirmed physical actuation (CallOrigin);
  // the $CONTROL driver has neither, so its calls are checked here.
  if (request.origin == CallOrigin::kControl) {
    const std::string_view scope = required_scope(verb_safety_class(cap->kind, cap->safety_class, request.verb), request.verb);
    if ((queued.control_scopes & scope_bit(scope).value_or(~0u)) == 0) {
      return ErrorEnvelope(ErrorCode::kSafetyDenied, "the caller's token lacks scope " + std::string(scope),
                           "ask the operator for a token with " + std::string(scope));
    }
    // No two-phase confirmation and no per-caller rate limits there (issue 17), whatever the token.
    if (scope == kScopeCallPhysical) {
      return ErrorEnvelope(ErrorCode::kSafetyDenied,
                           "physical actuation is refused on the $CONTROL test driver: it has no two-phase "
                           "confirmation and no rate limits",
                           "call the tool through the HTTP front (POST /mcp/tools/call or MCP tools/call)");
    }
  }
  if (!node->live()) {
    return ErrorEnvelope(ErrorCode::kNodeOffline, "node " + node->node_id + " has no live session",
                         "retry when $devices/<node_id>/status says online");
  }
  return Target{node, cap, verb};
}

Status CallDispatch::dispatch(QueuedCall& queued, int64_t now_ms) {
  auto resolved = resolve(queued, now_ms);
  if (!resolved) return std::move(resolved).error();
  Target& target = *resolved;
  // The front's gate has parsed and validated the arguments it serialised; the $CONTROL driver's
  // are parsed and validated here. Either way the text goes into the cmd as it is.
  if (queued.request.origin != CallOrigin::kFront) {
    if (Status valid = check_arguments(schemas_, *target.verb, queued.request.arguments_json); !valid) return valid;
  }

  SentCall call;
  call.msg_id = new_msg_id();
  call.output_schema = target.verb->output_schema;
  call.changes_state = !is_read_verb(target.verb->verb) && target.capability->safety_class != SafetyClass::kReadOnly;
  const int deadline_ms = target.capability->constraints.deadline_ms_default;
  const int64_t gateway_ms = gateway_deadline_ms(deadline_ms);
  call.deadline_at_ms = now_ms + gateway_ms;
  const std::string cmd = write_cmd(call.msg_id, now_ms, deadline_ms, queued.request.tool, queued.request.arguments_json);
  const std::string& node_id = target.node->node_id;
  // Straight to the node's client (client id = node_id): no subscription or READ check involved.
  // A node on another broker is reached through the subscriptions, i.e. the bridge's. Once its
  // caller has the deadline's answer the broker drops the cmd rather than deliver it late
  // (message expiry, whole seconds rounded up; the node checks ts_ms too, §4.3 step 5).
  broker_.publish_expiring(target.node->remote ? std::string_view{} : std::string_view(node_id),
                           devices_topic(node_id, DeviceLeaf::kCmd), cmd, 1,
                           static_cast<uint32_t>((gateway_ms + 999) / 1000));
  call.queued = std::move(queued);
  calls_.add(std::move(call));
  return {};
}

void CallDispatch::on_cmd_ack(std::string_view node_id, std::string_view payload, bool over_bridge) {
  const auto ack = parse_cmd_ack(payload, schemas_, ack_arena_);
  if (!ack) {
    bump(counters_.acks_malformed);
    audit_({.caller = node_id, .node_id = node_id, .decision = "drop", .code = "E_BAD_REQUEST",
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
    audit_({.caller = node_id, .node_id = node_id, .decision = "drop",
            .code = ack->ok ? std::string_view{} : error_code_name(ack->code), .reason = why});
    return;
  }
  finish(*call, checked_result(schemas_, *call, node_id, *ack));
}

void CallDispatch::finish(SentCall& call, CallResult result) {
  const int64_t now = clock_();
  if (!call.msg_id.empty()) calls_.remember_finished(call.msg_id, now);
  const int64_t latency_ms = now - call.queued.submitted_at_ms;
  if (result) {
    bump(counters_.calls_ok);
  } else {
    bump(result.error().code == ErrorCode::kDeadlineExceeded ? counters_.calls_timed_out : counters_.calls_failed);
    // RFC-0001 §4: the call's msg_id, the id the device's audit (logs.audit) files it under. A call
    // refused before it was sent has none.
    if (!call.msg_id.empty()) {
      ErrorEnvelope error = std::move(result).error();
      error.correlation_id = call.msg_id;
      result = std::move(error);
    }
  }
  // The front's CallLog writes its own line, naming the endpoint (CallOrigin::kFront).
  if (call.queued.request.origin != CallOrigin::kFront) {
    audit_({.caller = call.queued.request.caller,
            .tenant = call.queued.request.tenant,
            .tool = call.tool(),
            .node_id = call.node_id(),
            .decision = result ? "ok" : "error",
            .code = result ? std::string_view{} : error_code_name(result.error().code),
            .latency_ms = latency_ms});
  }
  if (!call.queued.done) return;
  try {
    call.queued.done(std::move(result));
  } catch (const std::exception& e) {
    broker_.log(LogLevel::kError, std::string("fleetmcp: a call completion handler failed: ") + e.what());
  }
}

void CallDispatch::fail_calls_of(std::string_view node_id, ErrorCode code) {
  for (SentCall& call : calls_.take_for_node(node_id)) {
    finish(call, ErrorEnvelope(code, "node " + call.node_id() + " went offline before answering",
                                    "retry when $devices/<node_id>/status says online"));
  }
}

void CallDispatch::expire(int64_t now_ms) {
  for (SentCall& call : calls_.take_overdue(now_ms)) {
    finish(call, deadline_exceeded(call, "node " + call.node_id() + " did not answer in time"));
  }
}

void CallDispatch::refuse(QueuedCall call, std::string tool, ErrorEnvelope error) {
  SentCall unsent;
  call.request.tool = std::move(tool);  // how its audit line names it
  unsent.queued = std::move(call);
  finish(unsent, std::move(error));
}

// A relayed cmd's msg_id, so that its ack (which the bridge carries back) is not audited here.
void CallDispatch::note_relayed_cmd(std::string_view payload) {
  // A cmd that does not parse is left alone: the node checks every cmd itself (docs/protocol.md §4)
  // and answers a bad one with an error ack.
  const auto cmd = json::parse_strict(payload);
  if (!cmd) return;
  if (const auto msg_id = json::get_string(*cmd, "msg_id")) {
    calls_.remember_relayed(std::string(*msg_id), clock_());
    bump(counters_.relayed_cmds);
  }
}

}  // namespace fleetmcp::plugin
