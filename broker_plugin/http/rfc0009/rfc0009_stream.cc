#include "broker_plugin/http/rfc0009/rfc0009_stream.h"

#include "broker_plugin/http/rfc0009/metrics_frame.h"
#include "broker_plugin/http/transport/sse_event.h"

namespace fleetmcp::http {

std::string_view close_reason(CloseCode code) {
  switch (code) {
    case CloseCode::kNormal: return "normal";
    case CloseCode::kIdleTimeout: return "idle_timeout";
    case CloseCode::kBackpressure: return "backpressure";
    case CloseCode::kRateLimited: return "rate_limited";
    case CloseCode::kDeviceOffline: return "device_offline";
  }
  return "normal";
}

std::string close_event(CloseCode code) {
  return sse_event("close", "{\"code\":" + std::to_string(static_cast<int>(code)) + ",\"reason\":\"" +
                                std::string(close_reason(code)) + "\"}");
}

std::shared_ptr<Rfc0009Stream> Rfc0009Stream::open(Exchange& exchange, TelemetryFanout& fanout, const FleetTool& tool,
                                                   const std::string& tenant, int64_t interval_ms,
                                                   const Rfc0009StreamConfig& config, Closed closed) {
  auto self = std::make_shared<Rfc0009Stream>(exchange.scheduler(), config, std::move(closed));
  self->stream_ = exchange.open_stream({{"Content-Type", "text/event-stream; charset=utf-8"}},
                                       StreamLimits{config.buffer_frames, config.idle_timeout});
  // The handler owns the session until the stream ends (the stream then drops the handler).
  self->stream_->on_end([s = self](StreamEnd why) {
    switch (why) {
      case StreamEnd::kOverflow: s->close(CloseCode::kBackpressure); break;
      case StreamEnd::kIdle: s->close(CloseCode::kIdleTimeout); break;
      case StreamEnd::kPeerClosed:
      case StreamEnd::kShutdown: s->close(CloseCode::kNormal); break;
    }
  });
  self->subscription_ = fanout.subscribe(tool, tenant, interval_ms, self);
  self->arm_ping();
  return self;
}

void Rfc0009Stream::refuse(Exchange& exchange, CloseCode code) {
  exchange.open_stream({{"Content-Type", "text/event-stream; charset=utf-8"}}, StreamLimits{})->finish(close_event(code));
}

void Rfc0009Stream::stop() {
  scheduler_->post([weak = weak_from_this()] {
    if (const auto s = weak.lock()) s->close(CloseCode::kNormal);
  });
}

void Rfc0009Stream::arm_ping() {
  ping_ = scheduler_->after(config_.ping, [weak = weak_from_this()] {
    const auto s = weak.lock();
    if (!s || s->done_) return;
    s->stream_->send(sse_event("ping", "{}"), false);  // a heartbeat, not a frame of the §6 buffer
    s->arm_ping();
  });
}

void Rfc0009Stream::on_sample(std::shared_ptr<const json::Document> sample) {
  scheduler_->post([weak = weak_from_this(), sample = std::move(sample)] {
    const auto s = weak.lock();
    if (!s || s->done_) return;
    if (const auto frame = metrics_frame_json(*sample)) s->stream_->send(sse_event("metric", *frame), true);
  });
}

void Rfc0009Stream::on_feed_end(const ErrorEnvelope&) {
  scheduler_->post([weak = weak_from_this()] {
    if (const auto s = weak.lock()) s->close(CloseCode::kDeviceOffline);
  });
}

void Rfc0009Stream::close(CloseCode code) {
  if (done_) return;
  done_ = true;
  ping_.reset();
  subscription_.reset();
  stream_->finish(close_event(code));
  if (closed_) std::exchange(closed_, nullptr)(code);
}

}  // namespace fleetmcp::http
