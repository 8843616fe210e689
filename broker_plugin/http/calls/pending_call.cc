#include "broker_plugin/http/calls/pending_call.h"

#include "common/protocol/deadlines.h"

namespace fleetmcp::http {

std::chrono::milliseconds gateway_deadline(const CapabilityConstraints& constraints) {
  return std::chrono::milliseconds(gateway_deadline_ms(constraints.deadline_ms_default));
}

std::shared_ptr<PendingCall> PendingCall::start(FleetView& fleet, std::shared_ptr<Scheduler> scheduler, CallSpec spec,
                                               Done done) {
  auto call = std::make_shared<PendingCall>(scheduler, std::move(done));
  // A timer per call costs a timerfd_settime and ~5 k instructions; skip it when the fleet
  // answers at the deadline itself.
  if (!fleet.answers_by_deadline()) {
    call->deadline_ = scheduler->after(spec.deadline, [weak = std::weak_ptr<PendingCall>(call), tool = spec.tool] {
      if (auto self = weak.lock()) {
        CallOutcome late;
        late.error = ErrorEnvelope(ErrorCode::kDeadlineExceeded, "the device did not answer " + tool + " in time",
                                   "retry later; the device may be busy or its handler stuck");
        self->finish(std::move(late));
      }
    });
  }
  // The outcome arrives on the broker's thread: hop to the exchange's scheduler. The shared_ptr
  // keeps the call alive until the FleetView answers, even after a cancel.
  fleet.call(std::move(spec), [call](CallOutcome outcome) {
    // Parked in the call rather than moved into the posted task: the task holds only the call,
    // and the block it is allocated in (here, freed on the scheduler's thread) stays small.
    call->delivered_ = std::move(outcome);
    call->scheduler_->post([call] { call->finish(std::move(call->delivered_)); });
  });
  return call;
}

bool PendingCall::cancel() {
  if (!done_) return false;
  done_ = nullptr;
  deadline_.reset();
  return true;
}

void PendingCall::finish(CallOutcome outcome) {
  if (!done_) return;
  deadline_.reset();
  auto done = std::exchange(done_, nullptr);
  done(std::move(outcome));
}

}  // namespace fleetmcp::http
