// POST /mcp/tools/call (RFC-0009 §3): {"tool", "arguments"} as tools.call.request@1.1.0: `tool` is a
// projected name or a name the default mode lists, a by_kind tool or fleet_read (docs/protocol.md D44).
//   - sys.<id>.metrics.subscribe needs Accept: text/event-stream (else 400 E_BAD_REQUEST, §3) and
//     answers 200 with the stream of rfc0009_stream.h; every later condition is a close code.
//   - Any other tool answers 200 with its result object, or the envelope with the status of
//     docs/protocol.md §9 (error_status.h); an unknown tool (or another tenant's) is 404.
//   - fleet_read answers 200 with its results object (fleet_read.h), each node's error inside it;
//     arguments refused for every node are the one envelope. fleet_find_nodes stays MCP's (404).
// The token is checked before (front_router.h); a scope it lacks is 403 insufficient_scope.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/auth/protected_resource.h"
#include "broker_plugin/http/calls/call_log.h"
#include "broker_plugin/http/calls/call_runner.h"
#include "broker_plugin/http/surface/fleet_read.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/base/front_metrics.h"
#include "broker_plugin/http/base/front_options.h"
#include "broker_plugin/http/streams/open_streams.h"
#include "broker_plugin/http/streams/telemetry_fanout.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::http {

class Rfc0009Endpoint {
 public:
  // Everything is owned by the front (FrontHandler) or a unit test and outlives every exchange.
  // `schemas` validates the request body; `wall_ms` is Unix milliseconds (tokens, rate buckets),
  // `steady_ms` monotonic (latencies).
  Rfc0009Endpoint(const FrontOptions& options, const SchemaRegistry& schemas, FleetView& fleet,
                  const CallRunner& calls, TelemetryFanout& fanout, OpenStreams& streams, FrontMetrics& metrics,
                  const CallLog& log, const ProtectedResource& resource, std::function<int64_t()> wall_ms,
                  std::function<int64_t()> steady_ms)
      : options_(options), schemas_(schemas), fleet_(fleet), calls_(calls), fanout_(fanout), streams_(streams),
        metrics_(metrics), log_(log), resource_(resource), wall_ms_(std::move(wall_ms)),
        steady_ms_(std::move(steady_ms)) {}
  void handle(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent);

 private:
  void fleet_read(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& caller,
                  const std::shared_ptr<const FleetSnapshot>& fleet, const FleetReadPlan& plan);
  // `arguments` are the call's own, which the gate validated (null: none).
  void open_stream(const std::shared_ptr<Exchange>& exchange, const AgentToken& agent, const FleetTool& tool,
                   const json::Value* arguments);

  const FrontOptions& options_;
  const SchemaRegistry& schemas_;
  FleetView& fleet_;
  const CallRunner& calls_;
  TelemetryFanout& fanout_;
  OpenStreams& streams_;
  FrontMetrics& metrics_;
  const CallLog& log_;
  const ProtectedResource& resource_;
  std::function<int64_t()> wall_ms_;
  std::function<int64_t()> steady_ms_;
};

}  // namespace fleetmcp::http
