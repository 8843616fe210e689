#include "broker_plugin/http/calls/fleet_read_run.h"

#include <algorithm>
#include <utility>

namespace fleetmcp::http {
namespace {

ResolvedCall node_call(const FleetReadPlan& plan, const FleetReadTarget& target) {
  return ResolvedCall{ResolvedCall::Action::kCall, target.tool, plan.arguments, "/arguments", {}};
}

}  // namespace

Result<std::shared_ptr<FleetReadRun>, CallRefusal> FleetReadRun::admit(const CallRunner& calls, const FleetSnapshot& fleet,
                                                                       const AgentToken& agent, const FleetReadPlan& plan) {
  auto run = std::make_shared<FleetReadRun>(calls, plan);
  const auto& targets = plan.targets;
  const auto first = std::find_if(targets.begin(), targets.end(), [](const FleetReadTarget& t) { return t.tool != nullptr; });
  run->first_ = static_cast<size_t>(first - targets.begin());
  if (first == targets.end()) return run;
  run->first_verdict_.emplace(calls.admit(fleet, agent, node_call(plan, *first)));
  const auto& verdict = *run->first_verdict_;
  if (!verdict && verdict.error().kind == RefusalKind::kExecution && verdict.error().error.code == ErrorCode::kInvalidArguments) {
    return CallRefusal{RefusalKind::kExecution, fleet_read_arguments_refused(*first->tool, verdict.error().error), nullptr,
                       std::string(kFleetReadTool), {}, {}};
  }
  return run;
}

void FleetReadRun::start(std::string_view via, const std::shared_ptr<Scheduler>& scheduler, const SharedAgentToken& caller,
                         const std::shared_ptr<const FleetSnapshot>& fleet, Done done) {
  const AgentToken& agent = *caller;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = std::move(done);
    remaining_ = plan_.targets.size() + 1;  // +1: this loop, so no answer comes before it has started every call
  }
  for (size_t i = 0; i < plan_.targets.size(); ++i) {
    const FleetReadTarget& target = plan_.targets[i];
    if (target.tool == nullptr) {
      ErrorEnvelope none(ErrorCode::kManifestNotFound, target.problem, "fleet_find_nodes lists your nodes and their kinds");
      one_done([i, none](FleetReadResults& r) { r.set_error(i, none); });
      continue;
    }
    auto admitted = i == first_ ? std::move(*first_verdict_) : calls_.admit(*fleet, agent, node_call(plan_, target));
    if (!admitted) {
      const CallRefusal& refusal = admitted.error();
      calls_.log().refused(via, &agent, refusal.asked, refusal.tool, refusal.error);
      one_done([i, e = refusal.error](FleetReadResults& r) { r.set_error(i, e); });
      continue;
    }
    calls_.start(via, scheduler, caller, fleet, std::move(*admitted),
                 [i, self = shared_from_this()](CallResult result) {
                   self->one_done([i, &result](FleetReadResults& r) {
                     if (result) r.set_result(i, *result);
                     else r.set_error(i, result.error());
                   });
                 });
  }
  one_done([](FleetReadResults&) {});
}

bool FleetReadRun::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  return !std::exchange(answered_, true);
}

void FleetReadRun::one_done(const std::function<void(FleetReadResults&)>& record) {
  Done done;
  json::Document results;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    record(results_);
    if (--remaining_ > 0 || std::exchange(answered_, true)) return;
    results = results_.document();
    done = std::move(done_);
  }
  done(std::move(results));
}

}  // namespace fleetmcp::http
