// What the front's endpoints share. Everything is owned by HttpFront (or by a unit test) and
// outlives every exchange.
#pragma once

#include <cstdint>
#include <functional>

#include "broker_plugin/http/calls/call_gate.h"
#include "broker_plugin/http/calls/call_log.h"
#include "broker_plugin/http/surface/compact_tools.h"
#include "broker_plugin/http/mcp/elicitation.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/front/front_metrics.h"
#include "broker_plugin/http/front/front_options.h"
#include "broker_plugin/http/surface/tool_surface.h"
#include "broker_plugin/http/mcp/mcp_session.h"
#include "broker_plugin/http/mcp/node_resources.h"
#include "broker_plugin/http/rfc0009/open_streams.h"
#include "broker_plugin/http/auth/protected_resource.h"
#include "broker_plugin/http/rfc0009/telemetry_fanout.h"
#include "broker_plugin/http/surface/tool_catalog.h"

namespace fleetmcp::http {

struct FrontServices {
  const FrontOptions& options;
  FleetView& fleet;
  const ToolCatalog& catalog;
  const ToolSurface& tools;      // the configured tools mode: what tools/list shows
  const CompactTools& compact;   // fleet_find_nodes and fleet_describe_node, callable in every mode
  CallGate& gate;
  Elicitations& elicitations;
  NodeResources& resources;
  TelemetryFanout& fanout;
  McpSessions& sessions;
  OpenStreams& streams;  // RFC-0009 and MCP GET streams: quotas and token re-checks
  FrontMetrics& metrics;
  const CallLog& log;
  const ProtectedResource& resource;
  std::function<int64_t()> wall_ms;    // Unix milliseconds: tokens, commit tokens, rate buckets
  std::function<int64_t()> steady_ms;  // monotonic milliseconds: latencies
};

}  // namespace fleetmcp::http
