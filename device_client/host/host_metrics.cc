#include "device_client/host/host_metrics.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <set>
#include <thread>

#include "common/base/file_text.h"
#include "common/ids/ulid.h"
#include "device_client/host/mount_table.h"

namespace fleetmcp::device {
namespace {

bool is_reportable_path(std::string_view path) {
  if (path.empty() || path.size() > 256) return false;
  for (unsigned char c : path) {
    if (c < 0x20 || c > 0x7E) return false;  // keep samples ASCII: no control bytes, no odd UTF-8
  }
  return true;
}

std::optional<DiskUsage> stat_disk(const MountEntry& m) {
  if (!is_reportable_path(m.mount) || m.fs_type.size() > 32) return std::nullopt;
  struct stat st{};
  if (::stat(m.mount.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return std::nullopt;
  struct statvfs vfs{};
  if (::statvfs(m.mount.c_str(), &vfs) != 0 || vfs.f_blocks == 0) return std::nullopt;
  const uint64_t unit = vfs.f_frsize ? vfs.f_frsize : vfs.f_bsize;
  return DiskUsage{m.mount, m.fs_type, uint64_t(vfs.f_blocks) * unit, uint64_t(vfs.f_bavail) * unit};
}

CpuUsage usage_between(const ProcStat& before, const ProcStat& after) {
  CpuUsage u;
  u.cores = static_cast<int>(after.cores.size());
  u.usage_pct = cpu_usage_pct(before.all, after.all);
  for (size_t i = 0; i < after.cores.size(); ++i) {
    u.per_core_pct.push_back(i < before.cores.size() ? cpu_usage_pct(before.cores[i], after.cores[i]) : 0);
  }
  return u;
}

}  // namespace

std::vector<DiskUsage> read_disks(std::string_view mounts_text) {
  std::vector<DiskUsage> out;
  std::set<std::string> seen;  // a mount point mounted over twice is reported once
  for (const MountEntry& m : parse_mounts(mounts_text)) {
    if (out.size() == 64) break;
    if (!is_physical_filesystem(m) || !seen.insert(m.mount).second) continue;
    if (auto d = stat_disk(m)) out.push_back(std::move(*d));
  }
  return out;
}

HostMetrics::HostMetrics(std::string proc_root, std::chrono::milliseconds max_age)
    : proc_root_(std::move(proc_root)), max_age_(max_age) {
  last_stat_ = parse_proc_stat(try_read_file(proc_root_ + "/stat").value_or(""));
}

HostSample HostMetrics::sample() {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (!cached_ || now - cached_at_ >= max_age_) {
    cached_ = read_now();
    cached_at_ = now;
  }
  return *cached_;
}

std::optional<CpuUsage> HostMetrics::read_cpu() {
  auto stat = parse_proc_stat(try_read_file(proc_root_ + "/stat").value_or(""));
  if (!stat) return std::nullopt;
  if (last_stat_ && stat->all.total == last_stat_->all.total && !last_cpu_) {
    // Called within a jiffy of start: take one short delta rather than report a made-up 0 %.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (auto again = parse_proc_stat(try_read_file(proc_root_ + "/stat").value_or(""))) stat = std::move(again);
  }
  if (last_stat_ && stat->all.total > last_stat_->all.total) {
    last_cpu_ = usage_between(*last_stat_, *stat);
    last_stat_ = std::move(stat);
  } else if (!last_stat_) {
    last_stat_ = std::move(stat);
  }
  return last_cpu_;
}

HostSample HostMetrics::read_now() {
  HostSample s;
  s.ts_ms = now_ms();
  s.uptime_s = parse_uptime_s(try_read_file(proc_root_ + "/uptime").value_or("")).value_or(0);
  s.cpu = read_cpu();
  s.mem = parse_meminfo(try_read_file(proc_root_ + "/meminfo").value_or(""));
  s.load = parse_loadavg(try_read_file(proc_root_ + "/loadavg").value_or(""));
  s.disk = read_disks(try_read_file(proc_root_ + "/self/mounts").value_or(""));
  return s;
}

}  // namespace fleetmcp::device
