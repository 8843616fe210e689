#include "broker_plugin/http/calls/in_flight_call.h"

#include "common/protocol/deadlines.h"

namespace fleetmcp::http {

std::chrono::milliseconds gateway_deadline(const CapabilityConstraints& constraints) {
  return std::chrono::milliseconds(gateway_deadline_ms(constraints.deadline_ms_default));
}

CallRequest call_request(const AgentToken& agent, const FleetTool& tool, std::string arguments_json) {
  return CallRequest{agent.sub,      agent.tenant,         tool.name.node_id,         tool.name.cap_id,
                     tool.name.verb, tool.canonical_name,  std::move(arguments_json), gateway_deadline(tool.constraints),
                     CallOrigin::kFront};
}

std::shared_ptr<InFlightCall> InFlightCall::start(FleetView& fleet, std::shared_ptr<Scheduler> scheduler, CallRequest request,
                                               Done done) {
  auto call = std::make_shared<InFlightCall>(scheduler, std::move(done));
  // A timer per call costs a timerfd_settime and ~5 k instructions; skip it when the fleet
  // answers at the deadline itself.
  if (!fleet.answers_by_deadline()) {
    std::string what = request.cap_id + "." + request.verb + " on node " + request.node_id;
    call->deadline_ = scheduler->after(request.deadline, [weak = std::weak_ptr<InFlightCall>(call), what = std::move(what)] {
      if (auto self = weak.lock()) {
        self->finish(ErrorEnvelope(ErrorCode::kDeadlineExceeded, "the device did not answer " + what + " in time",
                                   "retry later; the device may be busy or its handler stuck"));
      }
    });
  }
  // The result arrives on the broker's thread: hop to the exchange's scheduler. The shared_ptr
  // keeps the call alive until the FleetView answers, even after a cancel.
  fleet.call(std::move(request), [call](CallResult result) {
    // Parked in the call rather than moved into the posted task: the task holds only the call,
    // and the block it is allocated in (here, freed on the scheduler's thread) stays small.
    call->delivered_.emplace(std::move(result));
    call->scheduler_->post([call] { call->finish(std::move(*call->delivered_)); });
  });
  return call;
}

bool InFlightCall::cancel() {
  if (!done_) return false;
  done_ = nullptr;
  deadline_.reset();
  return true;
}

void InFlightCall::finish(CallResult result) {
  if (!done_) return;
  deadline_.reset();
  auto done = std::exchange(done_, nullptr);
  done(std::move(result));
}

}  // namespace fleetmcp::http
