// One unary call in flight from an HTTP exchange: handed to the FleetView, raced against the
// gateway deadline (docs/protocol.md §4: max(5000, deadline_ms_default + 1000) ms) unless the
// FleetView answers at that deadline itself (FleetView::answers_by_deadline), and answered exactly
// once on the exchange's scheduler. A late outcome after the deadline or a cancel is dropped.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "common/crypto/agent_token.h"

namespace fleetmcp::http {

std::chrono::milliseconds gateway_deadline(const CapabilityConstraints& constraints);

// The request for a call the gate admitted: `tool` of the snapshot, on behalf of `agent`.
CallRequest call_request(const AgentToken& agent, const FleetTool& tool, std::string arguments_json);

class InFlightCall : public std::enable_shared_from_this<InFlightCall> {
 public:
  using Done = CallDone;

  static std::shared_ptr<InFlightCall> start(FleetView& fleet, std::shared_ptr<Scheduler> scheduler, CallRequest request,
                                            Done done);
  // On the scheduler: nothing will be delivered any more (notifications/cancelled). False when
  // the outcome was already delivered.
  bool cancel();

  InFlightCall(std::shared_ptr<Scheduler> scheduler, Done done) : scheduler_(std::move(scheduler)), done_(std::move(done)) {}

 private:
  void finish(CallResult result);

  std::shared_ptr<Scheduler> scheduler_;
  Done done_;
  std::unique_ptr<Timer> deadline_;
  // The FleetView's result, written once on the thread that delivers it, before the post that
  // hands it to the scheduler (which orders the write before the read). Empty until then.
  std::optional<CallResult> delivered_;
};

}  // namespace fleetmcp::http
