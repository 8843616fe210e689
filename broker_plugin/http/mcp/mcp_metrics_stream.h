// sys.<id>.metrics.subscribe called over MCP: the tools/call is answered with an SSE stream
// (docs/platform-notes.md §H3). Each sample the fan-out delivers goes out as notifications/progress
// (only when the request carried _meta.progressToken; progress counts samples, the sample JSON is
// the message) and as notifications/message (logger "fleetmcp.metrics", the sample as data, unless
// the session set a level above info). The call ends:
//   - notifications/cancelled: the stream closes without a response (the spec says none is sent);
//   - the node goes offline: a result with isError and E_NODE_OFFLINE;
//   - its session ends, the front stops, or its token expires or is revoked (stop()): a result
//     with isError and the envelope saying so (issue 24, items 4 and 5);
//   - the maximum stream time passes: a result whose structuredContent is the lease (the tool's
//     output schema: interval_ms, lease_expires_at_ms) and a text summary.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/base/mcp_revision.h"
#include "broker_plugin/http/streams/telemetry_fanout.h"

namespace fleetmcp::http {

struct McpMetricsRequest {
  json::Document id;              // the JSON-RPC id
  json::Document progress_token;  // null when none was sent
  int64_t interval_ms = 5000;
  unsigned include = ~0u;         // MetricsSample sections to keep (include argument)
  bool send_messages = true;      // the session's log level admits info
  McpRevision revision = kLatestRevision;
};

class McpMetricsStream : public TelemetrySubscriber, public std::enable_shared_from_this<McpMetricsStream> {
 public:
  // Ends with "" (normal end or cancel) or the E_… code the stream ended with.
  using Ended = std::function<void(std::string_view code)>;

  static std::shared_ptr<McpMetricsStream> open(Exchange& exchange, TelemetryFanout& fanout, const FleetTool& tool,
                                                const std::string& tenant, McpMetricsRequest request,
                                                std::chrono::milliseconds max_stream, size_t buffer,
                                                std::function<int64_t()> wall_ms, Ended ended);

  void on_sample(std::shared_ptr<const json::Document> sample) override;
  void on_feed_end(const ErrorEnvelope& why) override;
  // notifications/cancelled; any thread.
  void cancel();
  // Ends the call with an isError result carrying `why`; any thread.
  void stop(ErrorEnvelope why);

  McpMetricsStream(std::shared_ptr<Scheduler> scheduler, McpMetricsRequest request,
                   std::function<int64_t()> wall_ms, Ended ended)
      : scheduler_(std::move(scheduler)), request_(std::move(request)), wall_ms_(std::move(wall_ms)),
        ended_(std::move(ended)) {}

 private:
  void send_sample(const json::Document& sample);
  void finish_with_error(const ErrorEnvelope& why);
  void finish_with(std::string response, std::string_view code);

  std::shared_ptr<Scheduler> scheduler_;
  McpMetricsRequest request_;
  std::function<int64_t()> wall_ms_;
  Ended ended_;
  std::string node_id_;
  std::shared_ptr<EventStream> stream_;
  std::unique_ptr<TelemetrySubscription> subscription_;
  std::unique_ptr<Timer> max_timer_;
  int64_t samples_ = 0;
  bool done_ = false;
};

// Bits for McpMetricsRequest::include from the include argument (absent: everything).
unsigned metrics_sections(const json::Value* include);

}  // namespace fleetmcp::http
