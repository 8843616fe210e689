// Where every call decision is recorded: one audit line (call_audit.h) and the /metrics
// counters, for refusals at the gate and for calls that ran.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "broker_plugin/http/calls/call_audit.h"
#include "broker_plugin/http/base/front_metrics.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "common/base/refusal_throttle.h"
#include "common/crypto/agent_token.h"

namespace fleetmcp::http {

class CallLog {
 public:
  CallLog(CallAudit audit, FrontMetrics& metrics, std::function<int64_t()> wall_ms, int64_t refusal_interval_ms = 0)
      : audit_(std::move(audit)), metrics_(metrics), wall_ms_(std::move(wall_ms)), refusals_(refusal_interval_ms) {}

  // Never dispatched. `tool` may be null (the name did not resolve); `asked` is the name given.
  // Lines are throttled per (via, caller, tenant, code) by refusal_throttle.h; metrics count all.
  // Without an agent (refused credentials) the line's reason is `why.message`: the check that failed.
  void refused(std::string_view via, const AgentToken* agent, std::string_view asked, const FleetTool* tool,
               const ErrorEnvelope& why) const;
  // Dispatched and answered (ok or an error from the device, the core or the deadline).
  void finished(std::string_view via, const AgentToken& agent, const FleetTool& tool, const CallResult& result,
                int64_t latency_ms) const;
  // A physical actuation call was confirmed (decision "confirm") or not ("refuse", E_SAFETY_DENIED),
  // and how: reason "commit_token" (two-phase) or "elicitation:accept|decline|cancel".
  void confirmation(std::string_view via, const AgentToken& agent, const FleetTool& tool, bool confirmed,
                    std::string_view how) const;
  // notifications/cancelled stopped a unary call before its outcome arrived.
  void cancelled(std::string_view via, const AgentToken& agent, const FleetTool& tool, int64_t latency_ms) const;
  // A metrics stream ended; `code` is empty for a normal end.
  void stream_ended(std::string_view via, const AgentToken& agent, const FleetTool& tool, std::string_view code,
                    int64_t duration_ms) const;

 private:
  void write_call(std::string_view via, const AgentToken& agent, const FleetTool& tool, AuditRecord record) const;

  CallAudit audit_;
  FrontMetrics& metrics_;
  std::function<int64_t()> wall_ms_;
  mutable RefusalThrottle<> refusals_;
};

}  // namespace fleetmcp::http
