#include "broker_plugin/http/streams/metrics_uri.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "common/base/text.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kPrefix = "fleetmcp://nodes/";
constexpr std::string_view kSuffix = "/metrics";
constexpr std::array<std::string_view, 5> kSections{"cpu", "mem", "load", "uptime", "disk"};
constexpr unsigned kEverySection = (1u << kSections.size()) - 1;

std::optional<unsigned> section_bit(std::string_view name) {
  const auto it = std::find(kSections.begin(), kSections.end(), name);
  if (it == kSections.end()) return std::nullopt;
  return 1u << (it - kSections.begin());
}

// The names of the sections of `include`, in the sample's order; none when it is every section.
std::vector<std::string_view> section_names(unsigned include) {
  std::vector<std::string_view> names;
  if ((include & kEverySection) == kEverySection) return names;
  for (size_t i = 0; i < kSections.size(); ++i) {
    if ((include & (1u << i)) != 0) names.push_back(kSections[i]);
  }
  return names;
}

ErrorEnvelope bad_uri(std::string_view uri, const std::string& what) {
  return ErrorEnvelope(ErrorCode::kInvalidArguments, "the metrics resource URI " + std::string(uri.substr(0, 200)) + " " + what,
                       "use fleetmcp://nodes/<node_id>/metrics?interval_ms=<1000..60000>, optionally with "
                       "&include=<cpu,mem,load,uptime,disk> (both optional: 5000 ms and every section by default)");
}

}  // namespace

bool is_metrics_uri(std::string_view uri) {
  if (!uri.starts_with(kPrefix)) return false;
  const std::string_view path = uri.substr(0, uri.find('?'));
  return path.size() > kPrefix.size() + kSuffix.size() && path.ends_with(kSuffix);
}

Result<MetricsUri> parse_metrics_uri(std::string_view uri) {
  if (!is_metrics_uri(uri)) return bad_uri(uri, "is not a node's metrics resource");
  const size_t query_at = uri.find('?');
  const std::string_view path = uri.substr(0, query_at);
  MetricsUri parsed;
  parsed.node_id = std::string(path.substr(kPrefix.size(), path.size() - kPrefix.size() - kSuffix.size()));
  if (parsed.node_id.find('/') != std::string::npos) return bad_uri(uri, "names no single node");
  if (query_at == std::string_view::npos) return parsed;
  bool has_interval = false, has_include = false;
  for (const std::string_view pair : split(uri.substr(query_at + 1), '&')) {
    const size_t eq = pair.find('=');
    const std::string_view key = pair.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    if (key == "interval_ms" && !has_interval) {
      has_interval = true;
      int64_t n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || value.empty() || n < kMetricsMinIntervalMs ||
          n > kMetricsMaxIntervalMs) {
        return bad_uri(uri, "has interval_ms=" + std::string(value.substr(0, 20)) + ": it must be an integer from 1000 to 60000");
      }
      parsed.interval_ms = n;
    } else if (key == "include" && !has_include) {
      has_include = true;
      if (value.empty()) return bad_uri(uri, "includes no section");
      parsed.include = 0;
      for (const std::string_view name : split(value, ',')) {
        const auto bit = section_bit(name);
        if (!bit) return bad_uri(uri, "includes " + std::string(name.substr(0, 20)) + ", which is no section of a sample");
        parsed.include |= *bit;
      }
    } else {
      return bad_uri(uri, "has the query parameter " + std::string(key.substr(0, 20)) +
                              (key == "interval_ms" || key == "include" ? " twice" : ", which it does not take"));
    }
  }
  return parsed;
}

std::string metrics_uri(std::string_view node_id, int64_t interval_ms, unsigned include) {
  std::string uri = std::string(kPrefix) + std::string(node_id) + std::string(kSuffix) + "?interval_ms=" + std::to_string(interval_ms);
  const std::vector<std::string_view> names = section_names(include);
  for (size_t i = 0; i < names.size(); ++i) uri.append(i == 0 ? "&include=" : ",").append(names[i]);
  return uri;
}

unsigned metrics_sections(const json::Value* include) {
  if (include == nullptr || !include->IsArray()) return kAllMetricsSections;
  unsigned bits = 0;
  for (const auto& v : include->GetArray()) {
    if (!v.IsString()) continue;
    bits |= section_bit(std::string_view(v.GetString(), v.GetStringLength())).value_or(0);
  }
  return bits;
}

json::Value metrics_include_argument(unsigned include, json::Allocator& a) {
  const std::vector<std::string_view> names = section_names(include);
  if (names.empty()) return json::Value();
  json::Value array(rapidjson::kArrayType);
  for (const std::string_view name : names) array.PushBack(json::string_value(name, a), a);
  return array;
}

json::Value filtered_sample(const json::Value& sample, unsigned include, json::Allocator& a) {
  json::Value out(rapidjson::kObjectType);
  for (const auto& m : sample.GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    const auto bit = key == "uptime" ? std::nullopt : section_bit(key);  // uptime_s is always kept
    if (bit && (include & *bit) == 0) continue;
    json::Value k, v;
    k.CopyFrom(m.name, a);
    v.CopyFrom(m.value, a);
    out.AddMember(k, v, a);
  }
  return out;
}

}  // namespace fleetmcp::http
