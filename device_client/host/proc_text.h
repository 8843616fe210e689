// Parsers for the text of /proc/stat, /proc/meminfo, /proc/loadavg and /proc/uptime (docs/protocol.md D10:
// the sysinfo crate's semantics reproduced from /proc). Pure functions over text, so the unit
// tests feed them recorded samples.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace fleetmcp::device {

// Jiffies of one "cpu" line. idle counts idle + iowait; total also counts user, nice, system,
// irq, softirq and steal (guest time is already inside user/nice), as sysinfo does.
struct CpuTimes {
  uint64_t idle = 0, total = 0;
};

struct ProcStat {
  CpuTimes all;
  std::vector<CpuTimes> cores;  // cpu0, cpu1, … in file order
};

std::optional<ProcStat> parse_proc_stat(std::string_view text);
// Busy share of the interval between two readings, 0..100. 0 when no time passed.
double cpu_usage_pct(const CpuTimes& before, const CpuTimes& after);

// Bytes (the file says kB, meaning KiB).
struct MemInfo {
  uint64_t total = 0, available = 0, swap_total = 0, swap_free = 0;
};
std::optional<MemInfo> parse_meminfo(std::string_view text);

struct LoadAvg {
  double one = 0, five = 0, fifteen = 0;
};
std::optional<LoadAvg> parse_loadavg(std::string_view text);

// Whole seconds since boot (the first field, truncated).
std::optional<int64_t> parse_uptime_s(std::string_view text);

}  // namespace fleetmcp::device
