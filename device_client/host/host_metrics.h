// Reads the host's figures for system.metrics, telemetry and system.health's rates from /proc and
// statvfs (docs/protocol.md D10).
// One instance serves every node of the process: simulated nodes report the host they run on, and
// a reading younger than `max_age` is reused so a thousand nodes cost one set of file reads.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "device_client/host/io_rates.h"
#include "device_client/host/metrics_sample.h"
#include "device_client/host/proc_text.h"

namespace fleetmcp::device {

class HostMetrics {
 public:
  // `proc_root` is "/proc" except in tests. Takes a first /proc/stat reading so the first
  // snapshot has a baseline to compute CPU usage from.
  explicit HostMetrics(std::string proc_root = "/proc",
                       std::chrono::milliseconds max_age = std::chrono::milliseconds(500));

  HostSample sample();
  // system.health's network and disk_io readings (io_rates.h), shared by every node likewise.
  std::shared_ptr<const IoRates> io_rates() { return io_.rates(); }

 private:
  HostSample read_now();
  std::optional<CpuUsage> read_cpu();

  const std::string proc_root_;
  const std::chrono::milliseconds max_age_;
  std::mutex mutex_;
  std::optional<ProcStat> last_stat_;       // baseline for the next CPU delta
  std::optional<CpuUsage> last_cpu_;        // reused when no jiffy passed since the baseline
  std::optional<HostSample> cached_;
  std::chrono::steady_clock::time_point cached_at_{};
  IoRateSampler io_;  // the live /proc and /sys
};

// The disks part of a sample: statvfs of each physical filesystem in `mounts_text`, at most 64
// (the schema's maxItems), skipping what cannot be reported (non-UTF-8 or over-long paths,
// files bind-mounted over files, zero-sized filesystems).
std::vector<DiskUsage> read_disks(std::string_view mounts_text);

}  // namespace fleetmcp::device
