// What a load run measured: every call's latency (kept whole: a 30 s run at 5 000 calls/s is
// 150 000 doubles, so the percentiles are exact rather than bucketed), how many calls succeeded,
// and the failures counted by kind ("http 504", "E_RATE_LIMITED", "transport"...). Printed as one
// aligned line, or added to a JSON object for bench/http_bench.sh.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/base/json.h"

namespace fleetmcp::bench {

struct LatencySummary {
  size_t count = 0;
  double mean_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, p999_ms = 0, max_ms = 0;
};

// Exact percentiles of `samples_ms` (sorted in place); all zero when there are none.
LatencySummary summarize(std::vector<double>& samples_ms);
// Adds mean_ms, p50_ms, p90_ms, p99_ms, p999_ms and max_ms to `object`.
void add_percentiles(json::Value& object, const LatencySummary& s, json::Allocator& alloc);

class LatencyRecord {
 public:
  void ok(double latency_ms) { latencies_ms_.push_back(latency_ms); }
  // A failed call: counted by kind; its latency is kept apart (a fast refusal is not a fast call).
  void failed(const std::string& kind, double latency_ms);

  uint64_t ok_count() const { return latencies_ms_.size(); }
  uint64_t failed_count() const;
  const std::map<std::string, uint64_t>& failures() const { return failures_; }

  LatencySummary ok_summary();
  // "p50 0.812 ms  p90 …  p99 …  max …  (12 failed: http 504 x12)"
  std::string describe();
  // Adds ok, failed, failures{kind: n}, p50_ms … max_ms to `object`.
  void add_to(json::Value& object, json::Allocator& alloc);

 private:
  std::vector<double> latencies_ms_;
  std::vector<double> failed_ms_;
  std::map<std::string, uint64_t> failures_;
};

}  // namespace fleetmcp::bench
