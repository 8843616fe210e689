#include "broker_plugin/http/calls/call_log.h"

namespace fleetmcp::http {

void CallLog::refused(std::string_view via, const AgentToken* agent, std::string_view asked, const FleetTool* tool,
                      const ErrorEnvelope& why) const {
  metrics_.count_call(tool ? std::string_view(tool->kind) : std::string_view("unknown"), error_code_name(why.code), -1);
  const std::string_view caller = agent ? std::string_view(agent->sub) : std::string_view{};
  const std::string_view tenant = agent ? std::string_view(agent->tenant) : std::string_view{};
  const int64_t now_ms = wall_ms_();
  std::string key = std::string(via) + '\n' + std::string(tenant) + '\n' + std::string(caller) + '\n' +
                    std::string(error_code_name(why.code));
  const auto unwritten = refusals_.admit(key, now_ms);
  if (!unwritten) {  // counted; the next line of this key says so
    metrics_.count_throttled_line();
    return;
  }
  // Without an agent the credentials were refused: the line says which check failed (never the token).
  std::string reason = agent ? std::string() : why.message;
  if (*unwritten > 0) {
    reason += (reason.empty() ? "" : "; ") + std::to_string(*unwritten) + " more refusals like this since the previous line";
  }
  audit_.write({.via = via,
                .caller = caller,
                .tenant = tenant,
                .tool = tool ? std::string_view(tool->canonical_name) : asked,
                .node_id = tool ? std::string_view(tool->name.node_id) : std::string_view{},
                .decision = "refuse",
                .code = error_code_name(why.code),
                .reason = reason},
               now_ms);
}

void CallLog::finished(std::string_view via, const AgentToken& agent, const FleetTool& tool, const CallResult& result,
                       int64_t latency_ms) const {
  const std::string_view code = result ? std::string_view{} : error_code_name(result.error().code);
  write_call(via, agent, tool, {.decision = result ? "ok" : "error", .code = code, .latency_ms = latency_ms});
  metrics_.count_call(tool.kind, result ? std::string_view("ok") : code, static_cast<double>(latency_ms) / 1000.0);
}

void CallLog::confirmation(std::string_view via, const AgentToken& agent, const FleetTool& tool, bool confirmed,
                           std::string_view how) const {
  const std::string_view code = confirmed ? std::string_view{} : error_code_name(ErrorCode::kSafetyDenied);
  write_call(via, agent, tool, {.decision = confirmed ? "confirm" : "refuse", .code = code, .reason = how});
}

void CallLog::cancelled(std::string_view via, const AgentToken& agent, const FleetTool& tool,
                        int64_t latency_ms) const {
  write_call(via, agent, tool, {.decision = "cancel", .latency_ms = latency_ms});
  metrics_.count_call(tool.kind, "cancelled", -1);
}

void CallLog::stream_ended(std::string_view via, const AgentToken& agent, const FleetTool& tool, std::string_view code,
                           int64_t duration_ms) const {
  write_call(via, agent, tool, {.decision = "stream", .code = code, .latency_ms = duration_ms});
  metrics_.count_call(tool.kind, code.empty() ? std::string_view("ok") : code, -1);
}

// A line about a call by `agent` to `tool`: who, which tool and node are filled in here.
void CallLog::write_call(std::string_view via, const AgentToken& agent, const FleetTool& tool, AuditRecord record) const {
  record.via = via;
  record.caller = agent.sub;
  record.tenant = agent.tenant;
  record.tool = tool.canonical_name;
  record.node_id = tool.name.node_id;
  audit_.write(record, wall_ms_());
}

}  // namespace fleetmcp::http
