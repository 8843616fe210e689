// The node calls of one fleet_read (fleet_read.h), the same for MCP tools/call and RFC-0009's
// endpoint: each node's call goes through CallRunner::admit and start like any other call, and
// the answers are collected in the plan's order (FleetReadResults). Only how the endpoint answers
// differs, and whether something else (an MCP session's end, a cancel) may answer first.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "broker_plugin/http/calls/call_runner.h"
#include "broker_plugin/http/surface/fleet_read.h"

namespace fleetmcp::http {

class FleetReadRun : public std::enable_shared_from_this<FleetReadRun> {
 public:
  using Done = std::function<void(json::Document results)>;

  // The gate's verdict on the plan's arguments at its first node with the capability: every node
  // gets the same arguments and the kind has one input schema, so arguments it refuses are the
  // whole call's one refusal (fleet_read_arguments_refused, audited by the endpoint), before any
  // node is called (issue 37). Otherwise the run, ready to start.
  static Result<std::shared_ptr<FleetReadRun>, CallRefusal> admit(const CallRunner& calls, const FleetSnapshot& fleet,
                                                                  const AgentToken& agent, const FleetReadPlan& plan);

  // Calls every node (a node the gate refuses is audited as `via` and answered in the results).
  // `done` runs once with FleetReadResults::document() when the last node has answered, unless
  // stop() came first. Call once.
  void start(std::string_view via, const std::shared_ptr<Scheduler>& scheduler, const SharedAgentToken& caller,
             const std::shared_ptr<const FleetSnapshot>& fleet, Done done);

  // Takes the one answer away from `done` (the caller answers otherwise): true when done has not
  // run and now never will.
  bool stop();

  FleetReadRun(const CallRunner& calls, const FleetReadPlan& plan) : calls_(calls), plan_(plan), results_(plan) {}

 private:
  void one_done(const std::function<void(FleetReadResults&)>& record);

  const CallRunner& calls_;
  FleetReadPlan plan_;  // its arguments are read only while start() runs (admission copies them)
  std::optional<Result<GatePass, CallRefusal>> first_verdict_;
  size_t first_ = 0;

  std::mutex mutex_;
  FleetReadResults results_;
  size_t remaining_ = 0;
  bool answered_ = false;
  Done done_;
};

}  // namespace fleetmcp::http
