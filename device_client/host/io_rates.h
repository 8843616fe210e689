// The network and disk_io parts of system.health (Doc 05 addendum §4.1, §4.2): per-interface and
// per-block-device rates from two readings of /proc/net/dev and /proc/diskstats taken
// kIoRateInterval apart (Doc 05 gives no interval; one second is what rates "per second" read
// best over, and it fits the kind's 3 s deadline). The addendum's reason is the Pi's SD card: its
// write rate shows wear and an ailing card before it fails. Parsers are pure over text, so the
// unit tests feed them recorded files; `root` prefixes /proc and /sys (tests).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "common/base/json.h"

namespace fleetmcp::device {

inline constexpr std::chrono::milliseconds kIoRateInterval{1000};
// The output schema's bound on interfaces and on devices (maxProperties).
inline constexpr size_t kMaxIoEntries = 64;

// Cumulative counters of one interface, from /proc/net/dev.
struct InterfaceCounters {
  uint64_t rx_bytes = 0, rx_packets = 0, rx_errors = 0, rx_dropped = 0;
  uint64_t tx_bytes = 0, tx_packets = 0, tx_errors = 0, tx_dropped = 0;
};
// Interfaces by name; names outside the schema's grammar (1-15 of [A-Za-z0-9_.@-]) are skipped.
std::map<std::string, InterfaceCounters> parse_proc_net_dev(std::string_view text);

// Cumulative counters of one block device, from /proc/diskstats (the kernel's iostats.rst:
// sectors are 512 bytes whatever the device's own sector size).
struct DiskCounters {
  uint64_t reads = 0, sectors_read = 0, writes = 0, sectors_written = 0;
  uint64_t in_flight = 0;  // I/Os in progress now (not cumulative)
  uint64_t io_ms = 0;      // time spent doing I/O
};
// Devices by name; names outside the schema's grammar (1-32 of [A-Za-z0-9_.-]) are skipped.
std::map<std::string, DiskCounters> parse_proc_diskstats(std::string_view text);

// Which devices the snapshot reports: whole disks (`whole_disks`, the names in /sys/block) that
// are not loop or RAM disks, which hold no storage of the device's own. An empty `whole_disks`
// (no sysfs) keeps every name but those.
bool reported_block_device(std::string_view name, const std::set<std::string>& whole_disks);

struct IoReading {
  std::map<std::string, InterfaceCounters> interfaces;
  std::map<std::string, DiskCounters> disks;  // reported_block_device ones only
  std::map<std::string, uint64_t> link_mbps;  // /sys/class/net/<if>/speed, where the kernel knows it
};
IoReading read_io(const std::string& root);

// Two readings and the time between them.
struct IoRates {
  IoReading before, after;
  std::chrono::milliseconds elapsed{0};
};

// Takes the pair of readings for a snapshot. One instance serves every node of the process
// (HostMetrics owns it): a pair that ended less than `max_age` ago is reused, and callers that
// arrive while one is being taken wait for it, so a thousand simulated nodes asking at once cost
// one pair and one interval, not a thousand.
class IoRateSampler {
 public:
  explicit IoRateSampler(std::string root = "", std::chrono::milliseconds interval = kIoRateInterval,
                         std::chrono::milliseconds max_age = std::chrono::milliseconds(500))
      : root_(std::move(root)), interval_(interval), max_age_(max_age) {}

  std::shared_ptr<const IoRates> rates();

 private:
  const std::string root_;
  const std::chrono::milliseconds interval_, max_age_;
  std::mutex mutex_;  // held while a pair is taken
  std::shared_ptr<const IoRates> last_;
  std::chrono::steady_clock::time_point last_at_{};
};

// {"interval_ms", "interfaces": {name: {bytes_sent_per_sec, bytes_recv_per_sec, packets_sent_per_sec,
// packets_recv_per_sec, error_rate_percent, drop_rate_percent[, utilization_percent]}},
// "total_bandwidth_mbps": {"up", "down"}}: interfaces present in both readings, at most
// kMaxIoEntries. A counter that went backwards (a reset) counts as 0.
json::Value network_rates_json(const IoReading& before, const IoReading& after, std::chrono::milliseconds interval,
                               json::Allocator& a);
// {"interval_ms", "devices": {name: {read_bytes_per_sec, write_bytes_per_sec, read_iops, write_iops,
// busy_percent, queue_depth}}, "total": {"read_mb_per_sec", "write_mb_per_sec"}} (MB = 10^6 bytes).
json::Value disk_io_rates_json(const IoReading& before, const IoReading& after, std::chrono::milliseconds interval,
                               json::Allocator& a);

}  // namespace fleetmcp::device
