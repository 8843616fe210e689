#include "broker_plugin/http/mcp/mcp_metrics_stream.h"

#include <algorithm>
#include <utility>

#include "broker_plugin/http/surface/tool_result.h"
#include "common/base/error_value.h"

namespace fleetmcp::http {
std::shared_ptr<McpMetricsStream> McpMetricsStream::open(std::shared_ptr<Scheduler> scheduler,
                                                         std::weak_ptr<McpSession> session, TelemetryFanout& fanout,
                                                         const FleetTool& tool, const std::string& tenant,
                                                         McpMetricsRequest request, std::chrono::milliseconds max_stream,
                                                         std::function<int64_t()> wall_ms, Ended ended) {
  // The output schema's bounds.
  request.interval_ms = std::clamp<int64_t>(request.interval_ms, kMetricsMinIntervalMs, kMetricsMaxIntervalMs);
  auto self = std::make_shared<McpMetricsStream>(std::move(scheduler), std::move(session), request, std::move(wall_ms),
                                                 std::move(ended));
  self->node_id_ = tool.name.node_id;
  self->ends_at_ms_ = self->wall_ms_() + max_stream.count();
  self->subscription_ = fanout.subscribe(tool, tenant, self->request_.interval_ms, self);
  self->max_timer_ = self->scheduler_->after(max_stream, [weak = std::weak_ptr<McpMetricsStream>(self)] {
    // Its planned end, not a failure: the audit line has no code.
    const auto s = weak.lock();
    if (!s) return;
    const ErrorEnvelope why(ErrorCode::kDeadlineExceeded,
                            "the metrics subscription of node " + s->node_id_ +
                                " reached its maximum duration (plugin_opt_http_mcp_max_stream_ms)",
                            s->request_.resource_uri.empty()
                                ? "call system_metrics_subscribe again to continue"
                                : "subscribe to " + s->request_.resource_uri + " again (a new subscriptions/listen) to continue");
    s->finish(&why, "");
  });
  return self;
}

json::Document McpMetricsStream::started_result(bool get_stream_open) const {
  json::Document lease(rapidjson::kObjectType);
  auto& a = lease.GetAllocator();
  lease.AddMember("interval_ms", request_.interval_ms, a);
  lease.AddMember("lease_expires_at_ms", ends_at_ms_, a);
  std::string text = "Subscribed to the metrics of node " + node_id_ + " every " +
                     std::to_string(request_.interval_ms) + " ms until lease_expires_at_ms (" +
                     std::to_string((ends_at_ms_ - wall_ms_()) / 1000) +
                     " s from now). This call returns now; each sample arrives as a notifications/message "
                     "(logger \"fleetmcp.metrics\", level info, the sample as data) on this session's GET stream. "
                     "A last notifications/message (level warning) says why the subscription ended (node offline, "
                     "token, maximum duration); notifications/cancelled naming this call's request id, or ending "
                     "the session, stops it. Call again to continue after it ends.";
  if (!get_stream_open) {
    text += " No GET stream is open for this session yet: samples sent before one opens are lost (GET /mcp with "
            "Accept: text/event-stream opens it; the SDK clients open it after initialize).";
  }
  return tool_success(lease, text, request_.revision);
}

void McpMetricsStream::on_sample(std::shared_ptr<const json::Document> sample) {
  scheduler_->post([weak = weak_from_this(), sample = std::move(sample)] {
    const auto s = weak.lock();
    if (s && !s->done_) s->send_sample(*sample);
  });
}

void McpMetricsStream::send_sample(const json::Document& sample) {
  json::Document n(rapidjson::kObjectType);
  const json::Value data = filtered_sample(sample, request_.include, n.GetAllocator());
  if (!request_.resource_uri.empty()) return updated(kSampleMetaKey, data);
  notify("info", data, n);
}

void McpMetricsStream::updated(std::string_view key, const json::Value& value) {
  const auto session = session_.lock();
  if (!session) return;
  json::Document params(rapidjson::kObjectType);
  auto& a = params.GetAllocator();
  json::Value meta(rapidjson::kObjectType), v;
  v.CopyFrom(value, a);
  meta.AddMember(json::string_value(key, a), v, a);
  params.AddMember("uri", json::string_value(request_.resource_uri, a), a);
  params.AddMember("_meta", meta, a);
  constexpr std::string_view kUpdated = "notifications/resources/updated";
  session->notify(ListenStreams::notification(kUpdated, request_.listen_id, std::move(params)));
}

// Sends notifications/message {level, logger "fleetmcp.metrics", data} to the session's GET
// stream, when the session's logging level admits `level`; `holder` owns `data`'s allocations and
// becomes the notification.
void McpMetricsStream::notify(std::string_view level, const json::Value& data, json::Document& holder) {
  const auto session = session_.lock();
  if (!session || !session->logs(level)) return;
  auto& a = holder.GetAllocator();
  json::Value params(rapidjson::kObjectType), d;
  d.CopyFrom(data, a);
  params.AddMember("level", json::string_value(level, a), a);
  params.AddMember("logger", "fleetmcp.metrics", a);
  params.AddMember("data", d, a);
  holder.SetObject();
  holder.AddMember("jsonrpc", "2.0", a);
  holder.AddMember("method", "notifications/message", a);
  holder.AddMember("params", params, a);
  session->notify(json::to_string(holder));
}

void McpMetricsStream::on_feed_end(const ErrorEnvelope& why) { stop(why); }

// Both hold the subscription until they ran: the session may have let go of it already.
void McpMetricsStream::stop(ErrorEnvelope why) {
  scheduler_->post([s = shared_from_this(), why = std::move(why)] { s->finish(&why, error_code_name(why.code)); });
}

void McpMetricsStream::cancel() {
  scheduler_->post([s = shared_from_this()] { s->finish(nullptr, ""); });
}

void McpMetricsStream::finish(const ErrorEnvelope* why, std::string_view code) {
  if (done_) return;
  done_ = true;
  max_timer_.reset();
  subscription_.reset();
  if (why != nullptr && !request_.resource_uri.empty()) {
    json::Document envelope(rapidjson::kObjectType);
    updated(kErrorMetaKey, error_value(*why, envelope.GetAllocator()));
  } else if (why != nullptr) {
    json::Document n(rapidjson::kObjectType);
    json::Value data(rapidjson::kObjectType);
    data.AddMember("node_id", json::string_value(node_id_, n.GetAllocator()), n.GetAllocator());
    data.AddMember("ended", error_value(*why, n.GetAllocator()), n.GetAllocator());
    notify("warning", data, n);
  }
  if (ended_) std::exchange(ended_, nullptr)(code);
}

}  // namespace fleetmcp::http
