// One tool call as it crosses the seam between whoever resolved it (the HTTP front, or the plugin's
// $CONTROL test driver) and the plugin core that sends the node its `cmd` (docs/protocol.md §4).
// The same request and result types on both sides of FleetView (broker_plugin/http/fleet/fleet_view.h),
// the adapter (broker_plugin/adapter/plugin_fleet_view.h) and FleetPlugin::submit_call: nothing is
// renamed or converted on the way.
//
// The tool is already resolved: the request names the node, the capability and the verb, and the
// tool's canonical name as its resolver had it, never a tool name to parse or rebuild again. Its
// origin says what was checked before it came: the core trusts the HTTP front's scope check, argument validation, two-phase confirmation and rate limits, and checks
// what the $CONTROL driver cannot (scope, arguments; no physical actuation there at all).
//
// No deadline crosses: the core computes the gateway deadline (docs/protocol.md §4) from the
// capability it sends the cmd to, and answers E_DEADLINE_EXCEEDED itself when it passes.
#pragma once

#include <functional>
#include <string>

#include "common/base/result.h"

namespace fleetmcp {

enum class CallOrigin {
  kFront,    // the HTTP front's CallGate: resolved, scope checked, arguments validated, limits applied
  kControl,  // the $CONTROL/fleetmcp/v1 test driver: the core checks scope and arguments itself
};

struct CallRequest {
  std::string caller, tenant;           // the authenticated agent: calls reach only its tenant's nodes
  std::string node_id, cap_id, verb;    // the resolved tool, by the ids the core finds it by
  std::string tool;                     // and by its canonical name (dotted, D9), which the cmd carries
  std::string arguments_json;           // a JSON object; for kFront valid against the verb's input schema
  CallOrigin origin = CallOrigin::kFront;
};

// The tool's result object as JSON text (checked by the core against the verb's output schema and
// result.node_id), or the error envelope the caller sees.
using CallResult = Result<std::string>;

// Called exactly once per call, by the gateway deadline at the latest, on any thread (the
// broker's); must not block.
using CallDone = std::function<void(CallResult)>;

}  // namespace fleetmcp
