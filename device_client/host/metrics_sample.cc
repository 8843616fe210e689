#include "device_client/host/metrics_sample.h"

#include <cmath>

namespace fleetmcp::device {
namespace {

using json::Allocator;
using json::Value;

// One decimal place is what a dashboard or an LLM reads; it also keeps telemetry small.
double round1(double x) { return std::round(x * 10.0) / 10.0; }

Value cpu_json(const CpuUsage& cpu, Allocator& a) {
  Value v(rapidjson::kObjectType);
  v.AddMember("cores", cpu.cores, a);
  v.AddMember("usage_pct", round1(cpu.usage_pct), a);
  Value per(rapidjson::kArrayType);
  for (double p : cpu.per_core_pct) per.PushBack(round1(p), a);
  v.AddMember("per_core_pct", per, a);
  return v;
}

Value mem_json(const MemInfo& m, Allocator& a) {
  Value v(rapidjson::kObjectType);
  v.AddMember("total_bytes", m.total, a);
  v.AddMember("available_bytes", m.available, a);
  v.AddMember("used_bytes", m.total > m.available ? m.total - m.available : 0, a);  // D10
  v.AddMember("swap_total_bytes", m.swap_total, a);
  v.AddMember("swap_used_bytes", m.swap_total > m.swap_free ? m.swap_total - m.swap_free : 0, a);
  return v;
}

Value load_json(const LoadAvg& l, Allocator& a) {
  Value v(rapidjson::kObjectType);
  v.AddMember("one", l.one, a);
  v.AddMember("five", l.five, a);
  v.AddMember("fifteen", l.fifteen, a);
  return v;
}

Value disk_json(const std::vector<DiskUsage>& disks, Allocator& a) {
  Value arr(rapidjson::kArrayType);
  for (const DiskUsage& d : disks) {
    Value v(rapidjson::kObjectType);
    v.AddMember("mount", json::string_value(d.mount, a), a);
    v.AddMember("fs_type", json::string_value(d.fs_type, a), a);
    v.AddMember("total_bytes", d.total_bytes, a);
    v.AddMember("available_bytes", d.available_bytes, a);
    arr.PushBack(v, a);
  }
  return arr;
}

unsigned part_of(std::string_view name) {
  if (name == "cpu") return kPartCpu;
  if (name == "mem") return kPartMem;
  if (name == "load") return kPartLoad;
  if (name == "uptime") return kPartUptime;
  if (name == "disk") return kPartDisk;
  return 0;
}

}  // namespace

unsigned metrics_parts_from_include(const json::Value* include) {
  if (include == nullptr || !include->IsArray()) return kPartAll;
  unsigned parts = 0;
  for (const auto& item : include->GetArray()) {
    if (item.IsString()) parts |= part_of({item.GetString(), item.GetStringLength()});
  }
  return parts;
}

json::Document metrics_sample_json(const HostSample& s, std::string_view node_id, unsigned parts) {
  json::Document doc(rapidjson::kObjectType);
  Allocator& a = doc.GetAllocator();
  doc.AddMember("ts_ms", s.ts_ms, a);
  doc.AddMember("node_id", json::string_value(node_id, a), a);
  doc.AddMember("uptime_s", s.uptime_s, a);
  if ((parts & kPartCpu) && s.cpu) doc.AddMember("cpu", cpu_json(*s.cpu, a), a);
  if ((parts & kPartMem) && s.mem) doc.AddMember("mem", mem_json(*s.mem, a), a);
  if ((parts & kPartLoad) && s.load) doc.AddMember("load", load_json(*s.load, a), a);
  if (parts & kPartDisk) doc.AddMember("disk", disk_json(s.disk, a), a);
  return doc;
}

}  // namespace fleetmcp::device
