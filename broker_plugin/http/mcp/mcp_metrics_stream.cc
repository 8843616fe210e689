#include "broker_plugin/http/mcp/mcp_metrics_stream.h"

#include <algorithm>
#include <array>

#include "broker_plugin/http/base/jsonrpc.h"
#include "broker_plugin/http/mcp/mcp_session.h"
#include "broker_plugin/http/transport/sse_event.h"
#include "broker_plugin/http/surface/tool_result.h"

namespace fleetmcp::http {
namespace {

constexpr std::array<std::string_view, 5> kSections{"cpu", "mem", "load", "uptime", "disk"};

// uptime_s, ts_ms and node_id are always kept: the sample schema requires them.
json::Value filtered(const json::Document& sample, unsigned include, json::Allocator& a) {
  json::Value out(rapidjson::kObjectType);
  for (const auto& m : sample.GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    const auto it = std::find(kSections.begin(), kSections.end(), key);
    const bool section = it != kSections.end() && key != "uptime";
    if (section && (include & (1u << (it - kSections.begin()))) == 0) continue;
    json::Value k, v;
    k.CopyFrom(m.name, a);
    v.CopyFrom(m.value, a);
    out.AddMember(k, v, a);
  }
  return out;
}

std::string message_event(const json::Document& notification) {
  return sse_event("message", json::to_string(notification));
}

}  // namespace

unsigned metrics_sections(const json::Value* include) {
  if (include == nullptr || !include->IsArray()) return ~0u;
  unsigned bits = 0;
  for (const auto& v : include->GetArray()) {
    if (!v.IsString()) continue;
    const auto it = std::find(kSections.begin(), kSections.end(), std::string_view(v.GetString(), v.GetStringLength()));
    if (it != kSections.end()) bits |= 1u << (it - kSections.begin());
  }
  return bits;
}

std::shared_ptr<McpMetricsStream> McpMetricsStream::open(Exchange& exchange, TelemetryFanout& fanout,
                                                         const FleetTool& tool, const std::string& tenant,
                                                         McpMetricsRequest request, std::chrono::milliseconds max_stream,
                                                         size_t buffer, std::function<int64_t()> wall_ms, Ended ended) {
  auto self = std::make_shared<McpMetricsStream>(exchange.scheduler(), std::move(request), std::move(wall_ms),
                                                 std::move(ended));
  self->node_id_ = tool.name.node_id;
  self->stream_ = exchange.open_stream({}, StreamLimits{buffer, {}});
  self->stream_->on_end([s = self](StreamEnd why) {
    // The front is stopping: the connection is still there to take the call's answer (its
    // session's end usually gave it already).
    if (why == StreamEnd::kShutdown) return s->finish_with_error(session_end_error(SessionEnd::kShutdown, EndedCall::kRead));
    // The connection is gone: without resumability nothing more can reach the client.
    s->finish_with({}, "");
  });
  self->subscription_ = fanout.subscribe(tool, tenant, self->request_.interval_ms, self);
  self->max_timer_ = self->scheduler_->after(max_stream, [weak = std::weak_ptr<McpMetricsStream>(self)] {
    const auto s = weak.lock();
    if (!s || s->done_) return;
    json::Document lease(rapidjson::kObjectType);
    auto& a = lease.GetAllocator();
    const int64_t interval = s->subscription_->leased_interval_ms() > 0 ? s->subscription_->leased_interval_ms()
                                                                         : s->request_.interval_ms;
    lease.AddMember("interval_ms", std::clamp<int64_t>(interval, 1000, 60000), a);
    // Before any grant the lease is, in effect, over now.
    lease.AddMember("lease_expires_at_ms", std::max(s->subscription_->lease_expires_at_ms(), s->wall_ms_()), a);
    const std::string text = "Streamed " + std::to_string(s->samples_) + " metrics samples of node " + s->node_id_ +
                             "; the stream reached its maximum duration. Call again to continue.";
    const json::Document result = tool_success(lease, text, s->request_.revision);
    s->finish_with(sse_event("message", rpc_result(s->request_.id, result)), "");
  });
  return self;
}

void McpMetricsStream::on_sample(std::shared_ptr<const json::Document> sample) {
  scheduler_->post([weak = weak_from_this(), sample = std::move(sample)] {
    const auto s = weak.lock();
    if (s && !s->done_) s->send_sample(*sample);
  });
}

void McpMetricsStream::send_sample(const json::Document& sample) {
  ++samples_;
  if (!request_.progress_token.IsNull()) {
    json::Document n(rapidjson::kObjectType);
    auto& a = n.GetAllocator();
    n.AddMember("jsonrpc", "2.0", a);
    n.AddMember("method", "notifications/progress", a);
    json::Value params(rapidjson::kObjectType), token;
    token.CopyFrom(request_.progress_token, a);
    params.AddMember("progressToken", token, a);
    params.AddMember("progress", samples_, a);
    params.AddMember("message", json::string_value(json::to_string(sample), a), a);
    n.AddMember("params", params, a);
    stream_->send(message_event(n), true);
  }
  if (request_.send_messages) {
    json::Document n(rapidjson::kObjectType);
    auto& a = n.GetAllocator();
    n.AddMember("jsonrpc", "2.0", a);
    n.AddMember("method", "notifications/message", a);
    json::Value params(rapidjson::kObjectType);
    params.AddMember("level", "info", a);
    params.AddMember("logger", "fleetmcp.metrics", a);
    params.AddMember("data", filtered(sample, request_.include, a), a);
    n.AddMember("params", params, a);
    stream_->send(message_event(n), true);
  }
}

void McpMetricsStream::on_feed_end(const ErrorEnvelope& why) { stop(why); }

void McpMetricsStream::stop(ErrorEnvelope why) {
  scheduler_->post([weak = weak_from_this(), why = std::move(why)] {
    if (const auto s = weak.lock()) s->finish_with_error(why);
  });
}

void McpMetricsStream::finish_with_error(const ErrorEnvelope& why) {
  if (done_) return;
  const json::Document result = tool_error(why, true, request_.revision);
  finish_with(sse_event("message", rpc_result(request_.id, result)), error_code_name(why.code));
}

void McpMetricsStream::cancel() {
  scheduler_->post([weak = weak_from_this()] {
    if (const auto s = weak.lock()) s->finish_with({}, "");
  });
}

void McpMetricsStream::finish_with(std::string response, std::string_view code) {
  if (done_) return;
  done_ = true;
  max_timer_.reset();
  subscription_.reset();
  stream_->finish(std::move(response));
  if (ended_) std::exchange(ended_, nullptr)(code);
}

}  // namespace fleetmcp::http
