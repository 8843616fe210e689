#include "broker_plugin/http/calls/call_runner.h"

namespace fleetmcp::http {

std::shared_ptr<InFlightCall> CallRunner::start(std::string_view via, const std::shared_ptr<Scheduler>& scheduler,
                                                SharedAgentToken agent, const std::shared_ptr<const FleetSnapshot>& fleet,
                                                GatePass pass, CallDone done) const {
  const FleetTool& tool = *pass.tool;
  CallRequest request{agent->sub,     agent->tenant,       tool.name.node_id,              tool.name.cap_id,
                      tool.name.verb, tool.canonical_name, std::move(pass.arguments_json), CallOrigin::kFront};
  // The call holds on to the snapshot its tool points into rather than copying the tool: a
  // snapshot shares all but what changed with the next one (fleet_view.h), so this keeps little.
  auto call = std::make_shared<InFlightCall>(*this, via, scheduler, std::move(agent),
                                             std::shared_ptr<const FleetTool>(fleet, pass.tool), std::move(pass.slot),
                                             std::move(done), steady_ms_());
  // The outcome arrives on the broker's thread: hop to the scheduler. The shared_ptr keeps the
  // call alive until the FleetView answers, even after it has ended.
  fleet_.call(std::move(request), [call](CallResult result) {
    // Parked in the call rather than moved into the posted task: the task holds only the call,
    // and the block it is allocated in (here, freed on the scheduler's thread) stays small.
    call->delivered_.emplace(std::move(result));
    call->scheduler_->post([call] { call->finish(std::move(*call->delivered_)); });
  });
  return call;
}

}  // namespace fleetmcp::http
