// GET /metrics in the Prometheus text exposition format (0.0.4): the front's own counters (calls
// by kind and outcome, a latency histogram, SSE streams, sessions, HTTP answers) and the fleet's
// state (nodes by state from the snapshot; announces, queue depth and MQTT refusals from the
// core), and the audit lines either throttled.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "broker_plugin/http/fleet/fleet_view.h"

namespace fleetmcp::http {

enum class StreamKind { kMcpGet, kMcpCall, kRfc0009, kCount };

class FrontMetrics {
 public:
  // outcome: "ok" or an E_… code; seconds < 0 for calls that never made a round trip.
  void count_call(std::string_view kind, std::string_view outcome, double seconds);
  void count_http(int status);
  // A refusal line the front did not write (refusal_throttle.h).
  void count_throttled_line() { throttled_lines_.fetch_add(1, std::memory_order_relaxed); }
  void stream_opened(StreamKind kind) { streams_[static_cast<size_t>(kind)].fetch_add(1); }
  void stream_closed(StreamKind kind) { streams_[static_cast<size_t>(kind)].fetch_sub(1); }
  int64_t streams(StreamKind kind) const { return streams_[static_cast<size_t>(kind)].load(); }

  std::string render(const FleetSnapshot& fleet, const FleetStats& stats, size_t sessions) const;

  static constexpr std::array<double, 14> kBuckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                   0.1,    0.25,  0.5,    1,     2.5,   5,     10};

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, uint64_t> calls_;
  std::array<uint64_t, kBuckets.size() + 1> latency_buckets_{};  // last = +Inf
  double latency_sum_ = 0;
  uint64_t latency_count_ = 0;
  std::map<int, uint64_t> http_;
  std::array<std::atomic<int64_t>, static_cast<size_t>(StreamKind::kCount)> streams_{};
  std::atomic<uint64_t> throttled_lines_{0};
};

}  // namespace fleetmcp::http
