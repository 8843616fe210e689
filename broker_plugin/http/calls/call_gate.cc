#include "broker_plugin/http/calls/call_gate.h"

#include "broker_plugin/http/calls/actuation_check.h"
#include "broker_plugin/http/surface/tool_hints.h"

namespace fleetmcp::http {
namespace {

CallRefusal execution(const FleetTool* tool, ErrorEnvelope error) {
  return CallRefusal{RefusalKind::kExecution, std::move(error), tool, {}, {}, {}};
}

// What a commit token confirms: this caller, this tool, these arguments.
CommitBinding commit_binding(const FleetTool& tool, const AgentToken& agent, const json::Value& arguments) {
  return CommitBinding{agent.tenant + "/" + agent.sub, tool.canonical_name, arguments_hash(arguments)};
}

std::string capability_key(const FleetTool& tool) { return tool.name.node_id + "/" + tool.name.cap_id; }

// A read of a capability that also acts (its class is not read_only, so it has a set or invoke)
// leaves headroom to the acting calls (call_limiter.h).
LimitClaim limit_claim(const FleetTool& tool) {
  return LimitClaim{.hold_slot = !is_metrics_stream(tool),
                    .leaves_headroom = tool.safety_class != SafetyClass::kReadOnly &&
                                       is_read_verb(tool.name.verb)};
}

ErrorEnvelope rate_limited(const FleetTool& tool, int64_t retry_after_ms) {
  ErrorEnvelope limited(ErrorCode::kRateLimited,
                        "capability " + tool.name.cap_id + " of node " + tool.name.node_id + " is at its rate or concurrency limit",
                        "retry after retry_after_ms milliseconds");
  limited.retry_after_ms = retry_after_ms;
  return limited;
}

// Splits the commit token off a two-phase call's arguments; the rest is what gets validated,
// hashed and sent.
std::optional<std::string> take_commit_token(json::Document& arguments) {
  if (!arguments.IsObject()) return std::nullopt;
  const auto it = arguments.FindMember(json::Value(kCommitTokenArgument.data(),
                                                   static_cast<rapidjson::SizeType>(kCommitTokenArgument.size())));
  if (it == arguments.MemberEnd()) return std::nullopt;
  std::optional<std::string> token;
  if (it->value.IsString()) token = std::string(it->value.GetString(), it->value.GetStringLength());
  arguments.EraseMember(it);
  return token ? token : std::string{};
}

}  // namespace

bool is_metrics_stream(const FleetTool& tool) { return tool.kind == "system.metrics" && tool.name.verb == "subscribe"; }

ErrorEnvelope unknown_tool_error(std::string_view tool_name, const std::vector<std::string_view>& nearest) {
  std::string names;
  for (std::string_view n : nearest) names += (names.empty() ? "" : ", ") + std::string(n);
  const std::string hint = names.empty() ? "" : "; did you mean " + names + "?";
  return ErrorEnvelope(ErrorCode::kManifestNotFound, "Unknown tool: " + ascii_clamp(tool_name, 128) + hint,
                       (names.empty() ? std::string() : "call one of " + names + ", or ") +
                           "call tools/list for the tools your token can see; a node may have gone, expired or been revoked");
}

Result<GatePass, CallRefusal> CallGate::admit(const FleetSnapshot& fleet, const AgentToken& agent, const ResolvedCall& call,
                                              int64_t now_ms, bool check_device) {
  const FleetTool* tool = call.tool;
  const json::Value* arguments_in = call.arguments;
  const SafetyClass safety_class = call_safety_class(tool->kind, tool->safety_class, tool->name.verb, arguments_in);
  const std::string scope(required_scope(safety_class, tool->name.verb));
  if (!agent.has_scope(scope)) {
    return CallRefusal{RefusalKind::kScope,
                       ErrorEnvelope(ErrorCode::kSafetyDenied, "this tool needs scope " + scope,
                                     "ask the operator for a token that carries " + scope),
                       tool, {}, scope, {}};
  }

  static const json::Value kNoArguments(rapidjson::kObjectType);
  if (arguments_in == nullptr) arguments_in = &kNoArguments;
  if (!arguments_in->IsObject()) {
    return execution(tool, ErrorEnvelope(ErrorCode::kInvalidArguments, "arguments must be a JSON object",
                                         "pass the arguments as an object matching the tool's inputSchema"));
  }
  // Only a two-phase call's arguments are copied (to take the commit token off); the others are
  // validated and serialised where they are.
  const bool two_phase = needs_commit_token(safety_class, tool->name.verb);
  json::Document without_token;
  std::optional<std::string> commit_token;
  if (two_phase) {
    without_token.CopyFrom(*arguments_in, without_token.GetAllocator());
    commit_token = take_commit_token(without_token);
  }
  const json::Value& arguments = two_phase ? without_token : *arguments_in;
  if (const auto failure = schemas_.validate(tool->verb.input_schema, arguments)) {
    const std::string pointer = std::string(call.arguments_at) + ascii_clamp(failure->path, 120);
    const std::string where = pointer.empty() ? "the top level" : pointer;
    return execution(tool, ErrorEnvelope(ErrorCode::kInvalidArguments,
                                         "invalid arguments at " + where + ": " + ascii_clamp(failure->for_sender(), 200),
                                         failure->fix_for_sender("fix the argument at " + where +
                                                                 " to match the tool's inputSchema (" +
                                                                 tool->verb.input_schema + ")")));
  }

  const FleetNode* node = fleet.node(agent.tenant, tool->name.node_id);
  if (node == nullptr || node->state != NodeState::kOnline) {
    return execution(tool, ErrorEnvelope(ErrorCode::kNodeOffline, "node " + tool->name.node_id + " is not connected",
                                         "retry when the node is online again ($devices/<node_id>/status)"));
  }
  // The first phase spends no rate, but nobody is asked to confirm a call the bucket would refuse
  // now (issue 33, item 5): not the model with a commit token, not the human by elicitation. The
  // second is rate-limited before its token is redeemed, so a confirmed call that meets the limit
  // keeps its token for the retry.
  const std::string key = capability_key(*tool);
  const LimitClaim claim = limit_claim(*tool);
  if (two_phase && !commit_token) {
    if (const int64_t wait = limiter_.rate_retry_after_ms(key, tool->constraints, now_ms, claim); wait > 0) {
      return execution(tool, rate_limited(*tool, wait));
    }
    if (const FleetTool* read = check_device ? read_before(fleet, agent.tenant, *tool) : nullptr) {
      CallRefusal first = execution(tool, ErrorEnvelope(ErrorCode::kSafetyDenied, "the device's state is read first", ""));
      first.read_first = read;
      return first;
    }
    return unconfirmed(*tool, agent, arguments, false, now_ms);
  }

  LimitDecision limit = limiter_.admit(key, tool->constraints, now_ms, claim);
  if (!limit.admitted) return execution(tool, rate_limited(*tool, limit.retry_after_ms));
  if (two_phase && !commits_.redeem(*commit_token, commit_binding(*tool, agent, arguments), now_ms)) {
    return unconfirmed(*tool, agent, arguments, true, now_ms);
  }
  return GatePass{tool, json::to_string(arguments), std::move(limit.slot), two_phase};
}

CallRefusal CallGate::unconfirmed(const FleetTool& tool, const AgentToken& agent, const json::Value& arguments,
                                  bool had_token, int64_t now_ms) {
  const std::string fresh = commits_.issue(commit_binding(tool, agent, arguments), now_ms);
  const std::string why = had_token ? "the commit token is unknown, used, expired or for another call"
                          : tool.safety_class == SafetyClass::kPhysicalActuation
                              ? "this call moves physical hardware and needs a person's confirmation"
                          : tool.verb_class() == SafetyClass::kPhysicalActuation
                              ? "this call installs software and restarts the device, and needs a person's confirmation"
                              : "force=true overrides the check that running services depend on the unit, and needs "
                                "a person's confirmation";
  // The token confirms only what a person agreed to: the model asks its user before it repeats the
  // call (issue 37 item 6); a client that can ask the user itself gets an elicitation instead.
  CallRefusal refusal = execution(&tool, ErrorEnvelope(ErrorCode::kSafetyDenied, why,
                                                       "ask the user whether to go ahead, saying what this call will "
                                                       "do; only if they agree, repeat the same call with the same "
                                                       "arguments plus " +
                                                           std::string(kCommitTokenArgument) + "=\"" + fresh +
                                                           "\" within 30 seconds"));
  refusal.commit_token = fresh;
  return refusal;
}

}  // namespace fleetmcp::http
