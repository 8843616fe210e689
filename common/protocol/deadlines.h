// The deadlines of a call (docs/protocol.md §4): what the gateway waits for, and the bounds of the
// `deadline_ms` a cmd carries. The node's side — never run a cmd whose `ts_ms + deadline_ms` has
// passed on the plugin's clock (§4.3 step 5) — needs an estimate of that clock from the node's own
// clocks; that estimate is the device's (device_client/commands/plugin_clock.h), not the wire's.
#pragma once

#include <cstdint>

namespace fleetmcp {

// docs/protocol.md §4.4 / RFC-0005 §7: the gateway answers a call by max(5000, deadline_ms_default
// + 1000) ms, and publishes its cmd with that message expiry.
constexpr int64_t gateway_deadline_ms(int64_t deadline_ms_default) {
  return deadline_ms_default + 1000 > 5000 ? deadline_ms_default + 1000 : 5000;
}

// A cmd's deadline_ms is 1..kMaxCmdDeadlineMs (mcp://schemas/cmd@1.0.0).
inline constexpr int64_t kMaxCmdDeadlineMs = 86'400'000;

}  // namespace fleetmcp
