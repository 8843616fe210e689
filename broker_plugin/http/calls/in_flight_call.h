// One unary call of an HTTP exchange between its start (CallRunner::start, call_runner.h) and its
// one end, on the exchange's scheduler: the FleetView's outcome (the device's result, or the core's
// error, E_DEADLINE_EXCEEDED at the gateway deadline included: fleet_view.h), end() (its MCP
// session ended) or cancel() (notifications/cancelled). Whichever comes first releases the call's
// concurrency slot and writes its audit line and metrics (call_log.h) before the endpoint answers;
// what comes later is dropped (a late outcome from the device included).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "broker_plugin/http/calls/call_limiter.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/transport/exchange.h"
#include "common/crypto/agent_token.h"

namespace fleetmcp::http {

class CallRunner;

class InFlightCall {
 public:
  // Made by CallRunner::start only. `tool` keeps the snapshot it points into alive until the call
  // has been audited; `via` is a constant ("mcp", "rfc0009").
  InFlightCall(const CallRunner& runner, std::string_view via, std::shared_ptr<Scheduler> scheduler,
               SharedAgentToken agent, std::shared_ptr<const FleetTool> tool, std::shared_ptr<ConcurrencySlot> slot,
               CallDone done, int64_t started_ms)
      : runner_(runner), via_(via), scheduler_(std::move(scheduler)), agent_(std::move(agent)), tool_(std::move(tool)),
        slot_(std::move(slot)), done_(std::move(done)), started_ms_(started_ms) {}

  // On the scheduler: the call ends now with `error` (its session ended), which `done` answers.
  // False when it had already ended.
  bool end(ErrorEnvelope error) { return finish(std::move(error)); }
  // On the scheduler: the call ends now unanswered; `done` never runs. False when it had already
  // ended.
  bool cancel();

 private:
  friend class CallRunner;
  bool finish(CallResult result);

  const CallRunner& runner_;
  std::string_view via_;
  std::shared_ptr<Scheduler> scheduler_;
  SharedAgentToken agent_;
  std::shared_ptr<const FleetTool> tool_;
  std::shared_ptr<ConcurrencySlot> slot_;
  CallDone done_;  // empty once the call has ended
  int64_t started_ms_;
  // The FleetView's result, written once on the thread that delivers it, before the post that
  // hands it to the scheduler (which orders the write before the read). Empty until then.
  std::optional<CallResult> delivered_;
};

}  // namespace fleetmcp::http
