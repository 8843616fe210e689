#include "bench/latency_record.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>

namespace fleetmcp::bench {

LatencySummary summarize(std::vector<double>& samples_ms) {
  LatencySummary s;
  if (samples_ms.empty()) return s;
  std::sort(samples_ms.begin(), samples_ms.end());
  const auto at = [&](double q) {
    // Nearest rank: the smallest sample with at least q of all samples at or below it.
    const size_t rank = static_cast<size_t>(q * static_cast<double>(samples_ms.size()) + 0.999999);
    return samples_ms[std::min(samples_ms.size() - 1, rank == 0 ? 0 : rank - 1)];
  };
  s.count = samples_ms.size();
  s.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(s.count);
  s.p50_ms = at(0.50);
  s.p90_ms = at(0.90);
  s.p99_ms = at(0.99);
  s.p999_ms = at(0.999);
  s.max_ms = samples_ms.back();
  return s;
}

void LatencyRecord::failed(const std::string& kind, double latency_ms) {
  ++failures_[kind];
  failed_ms_.push_back(latency_ms);
}

uint64_t LatencyRecord::failed_count() const {
  uint64_t n = 0;
  for (const auto& [kind, count] : failures_) n += count;
  return n;
}

void add_percentiles(json::Value& object, const LatencySummary& s, json::Allocator& alloc) {
  using Field = double LatencySummary::*;
  static constexpr std::pair<const char*, Field> kFields[] = {
      {"mean_ms", &LatencySummary::mean_ms}, {"p50_ms", &LatencySummary::p50_ms}, {"p90_ms", &LatencySummary::p90_ms},
      {"p99_ms", &LatencySummary::p99_ms},   {"p999_ms", &LatencySummary::p999_ms}, {"max_ms", &LatencySummary::max_ms}};
  for (const auto& [name, field] : kFields) object.AddMember(rapidjson::StringRef(name), s.*field, alloc);
}

LatencySummary LatencyRecord::ok_summary() { return summarize(latencies_ms_); }

std::string LatencyRecord::describe() {
  const LatencySummary s = ok_summary();
  char line[256];
  std::snprintf(line, sizeof line, "p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  p99.9 %.3f ms  max %.3f ms", s.p50_ms,
                s.p90_ms, s.p99_ms, s.p999_ms, s.max_ms);
  std::string out = line;
  if (!failures_.empty()) {
    out += "  (" + std::to_string(failed_count()) + " failed:";
    for (const auto& [kind, count] : failures_) out += " " + kind + " x" + std::to_string(count);
    out += ")";
  }
  return out;
}

void LatencyRecord::add_to(json::Value& object, json::Allocator& alloc) {
  const LatencySummary s = ok_summary();
  object.AddMember("ok", static_cast<uint64_t>(s.count), alloc);
  object.AddMember("failed", failed_count(), alloc);
  json::Value kinds(rapidjson::kObjectType);
  for (const auto& [kind, count] : failures_) kinds.AddMember(json::string_value(kind, alloc), json::Value(count), alloc);
  object.AddMember("failures", kinds, alloc);
  add_percentiles(object, s, alloc);
}

}  // namespace fleetmcp::bench
