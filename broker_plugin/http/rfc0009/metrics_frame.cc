#include "broker_plugin/http/rfc0009/metrics_frame.h"

#include <algorithm>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace fleetmcp::http {
namespace {

double clamp_pct(double v) { return std::clamp(v, 0.0, 100.0); }

std::optional<double> disk_used_pct(const json::Value* disks) {
  if (disks == nullptr) return 0.0;
  if (!disks->IsArray()) return std::nullopt;
  double total = 0, available = 0;
  for (const auto& d : disks->GetArray()) {
    const auto t = d.IsObject() ? json::get_number(d, "total_bytes") : std::nullopt;
    const auto av = d.IsObject() ? json::get_number(d, "available_bytes") : std::nullopt;
    if (!t || !av) continue;
    if (json::get_string(d, "mount") == std::optional<std::string_view>("/")) {
      return *t > 0 ? clamp_pct((*t - *av) * 100.0 / *t) : 0.0;
    }
    total += *t;
    available += std::min(*av, *t);
  }
  return total > 0 ? clamp_pct((total - available) * 100.0 / total) : 0.0;
}

struct Frame {
  int64_t ts_ms = 0;
  std::string node_id;
  double cpu_pct = 0, disk_pct = 0, load_1m = 0, load_5m = 0, load_15m = 0;
  int64_t mem_bytes = 0, mem_total_bytes = 0;
};

std::optional<Frame> frame_of(const json::Value& s) {
  if (!s.IsObject()) return std::nullopt;
  const json::Value* cpu = json::find(s, "cpu");
  const json::Value* mem = json::find(s, "mem");
  const json::Value* load = json::find(s, "load");
  const auto ts = json::get_int64(s, "ts_ms");
  const auto node = json::get_string(s, "node_id");
  if (!ts || !node || !cpu || !mem || !load || !cpu->IsObject() || !mem->IsObject() || !load->IsObject()) {
    return std::nullopt;
  }
  const auto usage = json::get_number(*cpu, "usage_pct");
  const auto total = json::get_int64(*mem, "total_bytes");
  const auto available = json::get_int64(*mem, "available_bytes");
  const auto one = json::get_number(*load, "one");
  const auto five = json::get_number(*load, "five");
  const auto fifteen = json::get_number(*load, "fifteen");
  const auto disk = disk_used_pct(json::find(s, "disk"));
  if (!usage || !total || !available || !one || !five || !fifteen || !disk || *total < 1) return std::nullopt;
  Frame f;
  f.ts_ms = *ts;
  f.node_id = std::string(*node);
  f.cpu_pct = clamp_pct(*usage);
  f.mem_total_bytes = *total;
  f.mem_bytes = json::get_int64(*mem, "used_bytes").value_or(std::max<int64_t>(0, *total - *available));
  f.disk_pct = *disk;
  f.load_1m = std::max(0.0, *one);
  f.load_5m = std::max(0.0, *five);
  f.load_15m = std::max(0.0, *fifteen);
  return f;
}

}  // namespace

std::optional<std::string> metrics_frame_json(const json::Value& sample) {
  const auto f = frame_of(sample);
  if (!f) return std::nullopt;
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const auto integer = [&w](const char* key, int64_t v) { w.Key(key); w.Int64(v); };
  const auto real = [&w](const char* key, double v) { w.Key(key); w.Double(v); };
  w.StartObject();  // §5.1 field order
  integer("ts_ms", f->ts_ms);
  w.Key("node_id");
  w.String(f->node_id.c_str(), static_cast<rapidjson::SizeType>(f->node_id.size()));
  real("cpu_pct", f->cpu_pct);
  integer("mem_bytes", f->mem_bytes);
  integer("mem_total_bytes", f->mem_total_bytes);
  real("disk_pct", f->disk_pct);
  real("load_1m", f->load_1m);
  real("load_5m", f->load_5m);
  real("load_15m", f->load_15m);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace fleetmcp::http
