// What the device can tell before anyone is asked to confirm a physical actuation (issue 37 item
// 3). Some calls cannot succeed in the device's present state, and the device would say so only
// after a person confirmed them: a gpio.pin set on a pin configured as an input. The manifest does
// not carry that state, so the first phase of such a call reads the capability first, with its own
// read verb (the broker's read, audited, spending no rate: mcp_methods.cc); when the state
// rules the call out, it is refused at once, no commit token issued and nobody asked, with what to
// do instead. A read that fails tells nothing: the call goes on to its confirmation as before.
#pragma once

#include <string_view>

#include "broker_plugin/http/fleet/fleet_view.h"
#include "common/base/error.h"
#include "common/base/json.h"
#include "common/base/result.h"

namespace fleetmcp::http {

// The tool of `fleet` that reads what `acting` needs (the same node and capability), or null when
// nothing about `acting` can be checked first.
const FleetTool* read_before(const FleetSnapshot& fleet, std::string_view tenant, const FleetTool& acting);

// Ok when `acting` may go on; when `state`, the result of read_before's tool, rules it out, the
// refusal: E_BAD_REQUEST, reason failed_precondition, naming the call that would make it possible
// (the node's configuring tool, under the name tools/list gives it).
Status allowed_by_state(const FleetSnapshot& fleet, std::string_view tenant, const FleetTool& acting,
                        const json::Value& state);

}  // namespace fleetmcp::http
