// RFC-0009 §5.1 metric frames from telemetry. Devices publish MetricsSample
// (system.metrics.sample@1.0.0: nested cpu/mem/load/disk); the SSE endpoint sends the flat frame
// (system.metrics.subscribe.frame@1.0.0). The mapping, with docs/protocol.md D10's units:
//   cpu_pct = cpu.usage_pct               mem_bytes = mem.used_bytes (else total − available)
//   mem_total_bytes = mem.total_bytes     load_1m/5m/15m = load.one/five/fifteen
//   disk_pct = used share of "/" if mounted, else of all listed filesystems together (0 if none)
#pragma once

#include <optional>
#include <string>

#include "common/base/json.h"

namespace fleetmcp::http {

// nullopt when the sample lacks a section the frame needs (a lease's `include` left it out) or
// is not a sample at all.
std::optional<std::string> metrics_frame_json(const json::Value& sample);

}  // namespace fleetmcp::http
