#include "broker_plugin/http/calls/in_flight_call.h"

#include <utility>

#include "broker_plugin/http/calls/call_runner.h"

namespace fleetmcp::http {

bool InFlightCall::finish(CallResult result) {
  if (!done_) return false;
  const CallDone done = std::exchange(done_, nullptr);
  if (slot_) slot_->release();
  runner_.log_.finished(via_, *agent_, *tool_, result, runner_.steady_ms_() - started_ms_);
  done(std::move(result));
  return true;
}

bool InFlightCall::cancel() {
  if (!done_) return false;
  done_ = nullptr;
  if (slot_) slot_->release();
  runner_.log_.cancelled(via_, *agent_, *tool_, runner_.steady_ms_() - started_ms_);
  return true;
}

}  // namespace fleetmcp::http
