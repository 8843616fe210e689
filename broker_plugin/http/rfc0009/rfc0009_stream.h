// The RFC-0009 metrics stream: the SSE body of POST /mcp/tools/call for
// sys.<id>.metrics.subscribe. `event: metric` frames (§5.1) at the caller's interval_ms,
// `event: ping` every 25 s whatever the cadence (§5.2), and one `event: close` (§5.3) with a §7
// code right before the connection is torn down:
//   1000 normal          the client closed its side, or the server is shutting down
//   4408 idle_timeout    no read progress by the client for 90 s
//   4413 backpressure    the client fell more than 3 frames behind (§6)
//   4503 device_offline  the node disconnected (or refused the telemetry lease)
//   4429 rate_limited    the caller or its tenant holds its quota of streams (open_streams.h):
//                        sent at once, instead of any metric frame (refuse())
// A stream whose token expires or is revoked, or that reaches plugin_opt_http_max_stream_ms,
// ends with 1000 (the closed §7 enum has no better code; the client reconnects with a valid
// token, and a dead token gets 401 there).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/streams/telemetry_fanout.h"

namespace fleetmcp::http {

enum class CloseCode { kNormal = 1000, kIdleTimeout = 4408, kBackpressure = 4413, kRateLimited = 4429, kDeviceOffline = 4503 };
std::string_view close_reason(CloseCode code);
// "event: close\ndata: {\"code\":1000,\"reason\":\"normal\"}\n\n"
std::string close_event(CloseCode code);

struct Rfc0009StreamConfig {
  std::chrono::milliseconds ping{25000};
  std::chrono::milliseconds idle_timeout{90000};
  size_t buffer_frames = 3;
};

class Rfc0009Stream : public TelemetrySubscriber, public std::enable_shared_from_this<Rfc0009Stream> {
 public:
  using Closed = std::function<void(CloseCode)>;

  // Opens the SSE response on `exchange` and starts the feed. `closed` runs once, on the
  // exchange's scheduler, with the code sent.
  static std::shared_ptr<Rfc0009Stream> open(Exchange& exchange, TelemetryFanout& fanout, const FleetTool& tool,
                                             const std::string& tenant, int64_t interval_ms,
                                             const Rfc0009StreamConfig& config, Closed closed);

  // Answers with a stream that carries only `event: close` with `code` (4429) and ends.
  static void refuse(Exchange& exchange, CloseCode code);
  // Ends the stream with 1000 from any thread (its token expired or was revoked: open_streams.h).
  void stop();

  void on_sample(std::shared_ptr<const json::Document> sample) override;
  void on_feed_end(const ErrorEnvelope& why) override;

  Rfc0009Stream(std::shared_ptr<Scheduler> scheduler, Rfc0009StreamConfig config, Closed closed)
      : scheduler_(std::move(scheduler)), config_(config), closed_(std::move(closed)) {}

 private:
  void arm_ping();
  void close(CloseCode code);

  std::shared_ptr<Scheduler> scheduler_;
  Rfc0009StreamConfig config_;
  Closed closed_;
  std::shared_ptr<EventStream> stream_;
  std::unique_ptr<TelemetrySubscription> subscription_;
  std::unique_ptr<Timer> ping_;
  bool done_ = false;
};

}  // namespace fleetmcp::http
