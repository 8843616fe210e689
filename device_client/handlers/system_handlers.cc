#include "device_client/handlers/system_handlers.h"

#include <sys/statvfs.h>

#include <cmath>

#include "common/ids/ulid.h"
#include "device_client/base/catalogue_error.h"
#include "device_client/host/iso_time.h"
#include "device_client/host/host_metrics.h"

namespace fleetmcp::device {
namespace {

void add_text(json::Document& d, const char* key, const std::string& value, size_t max) {
  auto& a = d.GetAllocator();
  d.AddMember(rapidjson::StringRef(key), json::string_value(value.substr(0, max), a), a);
}

}  // namespace

Result<json::Document> SystemInfoHandler::run(const ToolCall&) {
  const BasicInfo b = read_basic_info(root_);
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  add_text(d, "hostname", b.hostname, 255);
  add_text(d, "model", b.model, 256);
  add_text(d, "cpu_arch", b.cpu_arch, 64);
  d.AddMember("cpu_cores", b.cpu_cores, a);
  d.AddMember("memory_total_bytes", b.memory_total_bytes, a);
  add_text(d, "os_name", b.os_name, 256);
  add_text(d, "os_version", b.os_version, 256);
  add_text(d, "kernel_version", b.kernel_version, 256);
  d.AddMember("uptime_seconds", b.uptime_seconds, a);
  return d;
}

Result<json::Document> HealthHandler::run(const ToolCall&) {
  if (services_.host_metrics == nullptr) return failed_precondition("no host metrics on this node", "restart the device");
  const HostSample s = services_.host_metrics->sample();
  struct statvfs fs{};
  if (::statvfs((root_.empty() ? std::string("/") : root_).c_str(), &fs) != 0) {
    return failed_precondition("cannot stat the root filesystem: " + errno_text(errno), "check the device's storage");
  }
  const uint64_t disk_total = static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize;
  const uint64_t disk_available = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;

  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("timestamp", json::string_value(iso_utc_from_ms(now_ms()), a), a);
  const double cpu = s.cpu ? std::clamp(s.cpu->usage_pct, 0.0, 100.0) : 0.0;
  d.AddMember("cpu_usage_percent", std::round(cpu * 10.0) / 10.0, a);
  const uint64_t mem_total = s.mem ? s.mem->total : 0;
  d.AddMember("memory_used_bytes", s.mem ? s.mem->total - std::min(s.mem->total, s.mem->available) : 0, a);
  d.AddMember("memory_total_bytes", mem_total, a);
  d.AddMember("disk_used_bytes", disk_total - std::min(disk_total, disk_available), a);  // D10: total - available
  d.AddMember("disk_total_bytes", disk_total, a);
  // A reading the device cannot take is named with why (system.health.snapshot.output@1.2.0), so
  // "no temperature" is not read as "the sensor said nothing alarming".
  rapidjson::Value unavailable(rapidjson::kObjectType);
  if (auto t = read_cpu_temperature(root_, run_)) {
    d.AddMember("cpu_temperature_celsius", t->celsius, a);
    d.AddMember("temperature_source", json::string_value(t->source, a), a);
  } else {
    unavailable.AddMember("cpu_temperature_celsius", "no_sensor", a);
  }
  if (auto f = read_throttling(root_, run_)) {
    rapidjson::Value flags(rapidjson::kObjectType);
    flags.AddMember("under_voltage", f->under_voltage, a);
    flags.AddMember("freq_capped", f->freq_capped, a);
    flags.AddMember("throttled", f->throttled, a);
    d.AddMember("throttling_flags", flags, a);
  } else {
    unavailable.AddMember("throttling_flags", "no_firmware_report", a);
  }
  if (!unavailable.ObjectEmpty()) d.AddMember("unavailable", unavailable, a);
  const std::shared_ptr<const IoRates> io = services_.host_metrics->io_rates();
  d.AddMember("network", network_rates_json(io->before, io->after, io->elapsed, a), a);
  d.AddMember("disk_io", disk_io_rates_json(io->before, io->after, io->elapsed, a), a);
  return d;
}

}  // namespace fleetmcp::device
