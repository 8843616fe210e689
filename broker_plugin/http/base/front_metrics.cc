#include "broker_plugin/http/base/front_metrics.h"

#include <charconv>
#include <iterator>

namespace fleetmcp::http {
namespace {

// Label values here are server-made, but escape as the format requires anyway.
std::string label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

constexpr std::string_view kStreamNames[] = {"mcp_get", "mcp_call", "rfc0009"};

}  // namespace

void FrontMetrics::count_call(std::string_view kind, std::string_view outcome, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++calls_[{std::string(kind), std::string(outcome)}];
  if (seconds < 0) return;  // refused or streamed: no round trip to time
  size_t i = 0;
  while (i < kBuckets.size() && seconds > kBuckets[i]) ++i;
  ++latency_buckets_[i];
  latency_sum_ += seconds;
  ++latency_count_;
}

void FrontMetrics::count_http(int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++http_[status];
}

std::string FrontMetrics::render(const FleetSnapshot& fleet, const FleetStats& stats, size_t sessions) const {
  std::string out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    header(out, "fleetmcp_tool_calls_total", "counter", "Tool calls through the HTTP front by kind and outcome.");
    for (const auto& [key, n] : calls_) {
      out += "fleetmcp_tool_calls_total{kind=\"" + label(key.first) + "\",outcome=\"" + label(key.second) + "\"} " +
             std::to_string(n) + "\n";
    }
    header(out, "fleetmcp_tool_call_duration_seconds", "histogram", "Tool call latency seen by the HTTP front.");
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += latency_buckets_[i];
      out += "fleetmcp_tool_call_duration_seconds_bucket{le=\"" + number(kBuckets[i]) + "\"} " + std::to_string(cumulative) + "\n";
    }
    cumulative += latency_buckets_.back();
    out += "fleetmcp_tool_call_duration_seconds_bucket{le=\"+Inf\"} " + std::to_string(cumulative) + "\n";
    out += "fleetmcp_tool_call_duration_seconds_sum " + number(latency_sum_) + "\n";
    out += "fleetmcp_tool_call_duration_seconds_count " + std::to_string(latency_count_) + "\n";
    header(out, "fleetmcp_http_responses_total", "counter", "HTTP responses of the front by status code.");
    for (const auto& [status, n] : http_) {
      out += "fleetmcp_http_responses_total{code=\"" + std::to_string(status) + "\"} " + std::to_string(n) + "\n";
    }
  }
  header(out, "fleetmcp_nodes", "gauge", "Known nodes by state.");
  for (const auto& [state, n] : fleet.count_by_state()) {
    out += "fleetmcp_nodes{state=\"" + std::string(state) + "\"} " + std::to_string(n) + "\n";
  }
  header(out, "fleetmcp_announces_total", "counter", "Announces verified and refused by the plugin.");
  out += "fleetmcp_announces_total{result=\"verified\"} " + std::to_string(stats.announces_verified) + "\n";
  out += "fleetmcp_announces_total{result=\"refused\"} " + std::to_string(stats.announces_refused) + "\n";
  header(out, "fleetmcp_mqtt_refusals_total", "counter",
         "What the broker plugin refused, denied or dropped on MQTT, by what (every one; audit lines are throttled).");
  for (const auto& [what, n] : stats.mqtt_refusals) {
    out += "fleetmcp_mqtt_refusals_total{what=\"" + label(what) + "\"} " + std::to_string(n) + "\n";
  }
  header(out, "fleetmcp_audit_lines_throttled_total", "counter",
         "Refusal audit lines not written (the next line of their kind counts them), plugin and front.");
  out += "fleetmcp_audit_lines_throttled_total " +
         std::to_string(stats.audit_lines_throttled + throttled_lines_.load(std::memory_order_relaxed)) + "\n";
  header(out, "fleetmcp_call_queue_depth", "gauge", "Calls submitted and not yet dispatched by the broker thread.");
  out += "fleetmcp_call_queue_depth " + std::to_string(stats.calls_queued) + "\n";
  header(out, "fleetmcp_calls_pending", "gauge", "Calls dispatched to devices and waiting for cmd_ack.");
  out += "fleetmcp_calls_pending " + std::to_string(stats.calls_pending) + "\n";
  header(out, "fleetmcp_sse_streams", "gauge", "Open Server-Sent Events streams by endpoint.");
  for (size_t i = 0; i < std::size(kStreamNames); ++i) {
    out += "fleetmcp_sse_streams{endpoint=\"" + std::string(kStreamNames[i]) + "\"} " + std::to_string(streams_[i].load()) + "\n";
  }
  header(out, "fleetmcp_mcp_sessions", "gauge", "Live MCP sessions.");
  out += "fleetmcp_mcp_sessions " + std::to_string(sessions) + "\n";
  return out;
}

}  // namespace fleetmcp::http
