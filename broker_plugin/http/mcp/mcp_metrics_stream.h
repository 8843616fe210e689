// sys.<id>.metrics.subscribe called over MCP (issue 37, item 2). The tools/call is answered at
// once: the official SDK clients time out a request after 60 s, and progress notifications only
// extend that when the client opted in (resetTimeoutOnProgress), so a call that streams until
// it ends never answers a client in its default settings. The answer (started_result) says the
// subscription runs, its interval, until when, and where samples arrive: each sample the fan-out
// delivers goes to the session's GET stream as notifications/message (logger "fleetmcp.metrics",
// the sample as data, while the session's level admits info). The subscription ends:
//   - notifications/cancelled naming the call's request id, or its session ends: silently;
//   - the node goes offline, its token expires or is revoked, the front stops, or the maximum
//     stream time passes: with a last notifications/message (level warning, data {node_id,
//     ended, message}) saying why.
// It holds its place in the stream quotas (open_streams.h) until it ends.
//
// The same subscription serves the node's metrics resource (streams/metrics_uri.h), subscribed by
// a 2026-07-28 subscriptions/listen (or a 2025 session's resources/subscribe): each sample is a
// notifications/resources/updated of the subscribed URI with the sample in its _meta
// (kSampleMetaKey), so nothing needs a read that could land on another front; the last one carries
// the envelope of why it ended in its _meta (kErrorMetaKey, tool_result.h) instead.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "broker_plugin/http/base/mcp_revision.h"
#include "broker_plugin/http/mcp/mcp_session.h"
#include "broker_plugin/http/streams/metrics_uri.h"
#include "broker_plugin/http/streams/telemetry_fanout.h"

namespace fleetmcp::http {

// Where a metrics resource's notification carries its sample.
inline constexpr std::string_view kSampleMetaKey = "io.fleetmcp/sample";

struct McpMetricsRequest {
  int64_t interval_ms = kMetricsDefaultIntervalMs;
  unsigned include = kAllMetricsSections;  // MetricsSample sections to keep (include argument)
  McpRevision revision = kLatestRevision;
  // Not empty: a subscription to this metrics resource URI (as the client wrote it), told as
  // notifications/resources/updated; stamped for the subscriptions/listen of `listen_id` (its
  // JSON-RPC id text) when that is not empty.
  std::string resource_uri;
  std::string listen_id;
};

class McpMetricsStream : public TelemetrySubscriber, public std::enable_shared_from_this<McpMetricsStream> {
 public:
  // Ends with "" (maximum time, cancel or session end) or the E_… code it ended with.
  using Ended = std::function<void(std::string_view code)>;

  static std::shared_ptr<McpMetricsStream> open(std::shared_ptr<Scheduler> scheduler, std::weak_ptr<McpSession> session,
                                                TelemetryFanout& fanout, const FleetTool& tool, const std::string& tenant,
                                                McpMetricsRequest request, std::chrono::milliseconds max_stream,
                                                std::function<int64_t()> wall_ms, Ended ended);

  // The tools/call result: the lease (the tool's output schema: interval_ms, and
  // lease_expires_at_ms = when this subscription ends) and a text saying where samples arrive.
  json::Document started_result(bool get_stream_open) const;

  void on_sample(std::shared_ptr<const json::Document> sample) override;
  void on_feed_end(const ErrorEnvelope& why) override;
  // notifications/cancelled or the session's end: no last message; any thread.
  void cancel();
  // Ends with a last message carrying `why`; any thread.
  void stop(ErrorEnvelope why);

  McpMetricsStream(std::shared_ptr<Scheduler> scheduler, std::weak_ptr<McpSession> session, McpMetricsRequest request,
                   std::function<int64_t()> wall_ms, Ended ended)
      : scheduler_(std::move(scheduler)), session_(std::move(session)), request_(request),
        wall_ms_(std::move(wall_ms)), ended_(std::move(ended)) {}

 private:
  void send_sample(const json::Document& sample);
  void notify(std::string_view level, const json::Value& data, json::Document& holder);
  // notifications/resources/updated of the subscribed resource, `value` in its _meta under `key`.
  void updated(std::string_view key, const json::Value& value);
  // `why` (null: none) goes out as the last message; `code` is what the audit line records.
  void finish(const ErrorEnvelope* why, std::string_view code);

  std::shared_ptr<Scheduler> scheduler_;
  std::weak_ptr<McpSession> session_;
  McpMetricsRequest request_;
  std::function<int64_t()> wall_ms_;
  Ended ended_;
  std::string node_id_;
  int64_t ends_at_ms_ = 0;
  std::unique_ptr<TelemetrySubscription> subscription_;
  std::unique_ptr<Timer> max_timer_;
  bool done_ = false;
};

}  // namespace fleetmcp::http
