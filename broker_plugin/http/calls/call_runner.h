// The one way an agent's tool call goes from an endpoint to the fleet and back, the same for MCP
// tools/call, fleet_read and RFC-0009 (issue 34): admit() is the CallGate's verdict (call_gate.h);
// start() hands an admitted unary call to the FleetView as an InFlightCall (in_flight_call.h),
// whose one end releases the concurrency slot and writes the audit line and metrics (call_log.h)
// before the endpoint's `done` answers. The endpoints differ only in how they answer, and in how
// they audit a refusal (MCP audits a first phase it asks a human about when the human answers).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "broker_plugin/http/calls/call_gate.h"
#include "broker_plugin/http/calls/call_log.h"
#include "broker_plugin/http/calls/in_flight_call.h"

namespace fleetmcp::http {

class CallRunner {
 public:
  // Everything is owned by the front (FrontHandler) or a unit test and outlives every call.
  // `wall_ms` is Unix milliseconds (tokens, commit tokens, rate buckets), `steady_ms` monotonic
  // (latencies).
  CallRunner(CallGate& gate, FleetView& fleet, const CallLog& log, std::function<int64_t()> wall_ms,
             std::function<int64_t()> steady_ms)
      : gate_(gate), fleet_(fleet), log_(log), wall_ms_(std::move(wall_ms)), steady_ms_(std::move(steady_ms)) {}

  // CallGate::admit now. A refusal is the endpoint's to audit and answer.
  Result<GatePass, CallRefusal> admit(const FleetSnapshot& fleet, const AgentToken& agent, const ResolvedCall& call,
                                      bool check_device = false) const {
    return gate_.admit(fleet, agent, call, wall_ms_(), check_device);
  }
  // CallGate::adopt_commit_token now.
  void adopt_commit_token(const std::string& token, CommitBinding binding, int64_t expires_at_ms) const {
    gate_.adopt_commit_token(token, std::move(binding), expires_at_ms, wall_ms_());
  }
  // Starts the unary call (not a metrics stream) that `pass` admitted to a tool of `fleet`, on
  // behalf of `agent`, audited as made through `via`. `done` runs once on `scheduler` when the
  // call ends, unless it is cancelled (in_flight_call.h).
  std::shared_ptr<InFlightCall> start(std::string_view via, const std::shared_ptr<Scheduler>& scheduler,
                                      SharedAgentToken agent, const std::shared_ptr<const FleetSnapshot>& fleet,
                                      GatePass pass, CallDone done) const;
  // Where refusals are audited (an endpoint's, and fleet_read_run.h's per node).
  const CallLog& log() const { return log_; }

 private:
  friend class InFlightCall;

  CallGate& gate_;
  FleetView& fleet_;
  const CallLog& log_;
  std::function<int64_t()> wall_ms_;
  std::function<int64_t()> steady_ms_;
};

}  // namespace fleetmcp::http
