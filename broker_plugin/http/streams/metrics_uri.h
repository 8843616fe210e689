// A fan-out subscription named as a URI: the MCP resource of a node's metrics,
// `fleetmcp://nodes/{node_id}/metrics`, with an optional query `interval_ms=N` (an integer 1000 to
// 60000, the subscribe tool's bounds; default 5000) and `include=cpu,mem,…` (the sections, as the
// subscribe and snapshot tools' include argument; default all), in either order. The 2026-07-28
// way to subscribe to metrics is to name this URI in subscriptions/listen's resourceSubscriptions
// (docs/http-front.md "Metrics over MCP"); the subscribe tool's 2026-07-28 answer names it.
// Anything else after the path (another parameter, one given twice, a value out of range) is
// refused with a fix, never read as the default.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/base/json.h"
#include "common/base/result.h"

namespace fleetmcp::http {

inline constexpr std::string_view kMetricsResourceTemplate = "fleetmcp://nodes/{node_id}/metrics{?interval_ms,include}";
inline constexpr int64_t kMetricsDefaultIntervalMs = 5000;
inline constexpr int64_t kMetricsMinIntervalMs = 1000;
inline constexpr int64_t kMetricsMaxIntervalMs = 60000;
// Every section of a MetricsSample (the include bits below).
inline constexpr unsigned kAllMetricsSections = ~0u;

struct MetricsUri {
  std::string node_id;
  int64_t interval_ms = kMetricsDefaultIntervalMs;
  unsigned include = kAllMetricsSections;
};

// Whether `uri` is of the metrics resource's shape (fleetmcp://nodes/<id>/metrics[?…]), valid or not.
bool is_metrics_uri(std::string_view uri);
// E_INVALID_ARGUMENTS naming the part that is wrong and the form that is right.
Result<MetricsUri> parse_metrics_uri(std::string_view uri);
// The URI of `node_id`'s metrics every `interval_ms`; include only when it is not every section.
std::string metrics_uri(std::string_view node_id, int64_t interval_ms, unsigned include);

// Bits for MetricsUri::include from a JSON include argument (absent: every section; unknown
// names are skipped: the tool's input schema has refused them already).
unsigned metrics_sections(const json::Value* include);
// The include argument for `include` (null when every section: the tools' default).
json::Value metrics_include_argument(unsigned include, json::Allocator& a);
// A sample with only the sections of `include` (ts_ms, node_id and uptime_s always: the sample
// schema requires them).
json::Value filtered_sample(const json::Value& sample, unsigned include, json::Allocator& a);

}  // namespace fleetmcp::http
