// MetricsSample (RFC-0001 §5.4, mcp://schemas/system.metrics.sample@1.0.0): the host figures of
// one reading and their JSON form for one node, honouring `include`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/base/json.h"
#include "device_client/host/proc_text.h"

namespace fleetmcp::device {

// Bit set of RFC-0001 §5.2 `include` values. uptime_s is always present: the schema requires it.
enum MetricsPart : unsigned {
  kPartCpu = 1,
  kPartMem = 2,
  kPartLoad = 4,
  kPartUptime = 8,
  kPartDisk = 16,
  kPartAll = 31,
};

// Reads an `include` array already validated against the input schema; absent = everything.
unsigned metrics_parts_from_include(const json::Value* include);

struct CpuUsage {
  int cores = 1;
  double usage_pct = 0;
  std::vector<double> per_core_pct;
};

struct DiskUsage {
  std::string mount, fs_type;
  uint64_t total_bytes = 0, available_bytes = 0;
};

struct HostSample {
  int64_t ts_ms = 0;
  int64_t uptime_s = 0;
  std::optional<CpuUsage> cpu;
  std::optional<MemInfo> mem;
  std::optional<LoadAvg> load;
  std::vector<DiskUsage> disk;
};

// The MetricsSample object of `sample` for `node_id`. Parts the host could not read are left out
// (they are optional in the schema) rather than reported as zeros.
json::Document metrics_sample_json(const HostSample& sample, std::string_view node_id, unsigned parts);

}  // namespace fleetmcp::device
