// process.table (Doc 05 process.list_processes / get_process_details, addendum §2.3–§2.4 and §5):
// /proc/<pid>/{stat,status,cmdline,io} parsed into ProcessInfo, then filtered, sorted and paged.
// Readers take the proc root ("/proc", or a recorded tree in tests).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/json.h"

namespace fleetmcp::device {

struct ProcStatFields {
  std::string comm;
  char state = '?';
  int64_t ppid = 0, nice = 0, num_threads = 1;
  uint64_t utime = 0, stime = 0, starttime = 0;  // clock ticks
  uint64_t vsize = 0, rss_pages = 0;
};
// /proc/<pid>/stat; the comm may itself contain spaces and parentheses (the last ')' ends it).
std::optional<ProcStatFields> parse_pid_stat(std::string_view text);
// R→running, S→sleeping, D→disk-sleep, T/t→stopped, Z/X→zombie, I→idle.
std::string_view process_status(char state);

struct ProcessInfo {
  int64_t pid = 0, ppid = 0, nice = 0, num_threads = 1;
  std::string name, status, username, exe, cwd;
  std::vector<std::string> cmdline;
  double create_time = 0;      // Unix seconds
  double cpu_percent = 0;      // since the process started, until rate_cpu_over_window narrows it
  double memory_percent = 0;
  uint64_t memory_rss = 0, memory_vms = 0;
  double cpu_user_s = 0, cpu_system_s = 0;
  std::optional<uint64_t> read_count, write_count, read_bytes, write_bytes;
  std::optional<int64_t> num_fds;
};

struct ProcessContext {
  std::string proc_root = "/proc";
  double ticks_per_second = 100;
  uint64_t page_size = 4096;
  int64_t boot_time_s = 0;   // /proc/stat btime
  double uptime_s = 0;
  uint64_t memory_total = 0;
};
// Reads btime, uptime and MemTotal from proc_root.
ProcessContext read_process_context(std::string proc_root);

// nullopt when the process is gone or unreadable. `details` adds io, fds, exe and cwd.
std::optional<ProcessInfo> read_process(const ProcessContext& ctx, int64_t pid, bool details);
std::vector<ProcessInfo> read_all_processes(const ProcessContext& ctx);

// A share since the process started hides what it does now (a daemon busy for a minute after a day
// idle reads 0.1 %), so cpu_percent is rated over a recent window: `later`'s processes get the CPU
// time they used since `earlier` (the same pid and start time) over `interval_s` of wall time.
// A process `earlier` lacks started inside the window and keeps its since-start share.
void rate_cpu_over_window(std::vector<ProcessInfo>& later, const std::vector<ProcessInfo>& earlier, double interval_s);

struct ProcessQuery {
  std::optional<std::string> username, name_pattern;
  std::optional<double> min_cpu_percent, min_memory_mb;
  std::vector<std::string> statuses;
  std::string sort_by = "pid";
  bool descending = false;
  int limit = 50, offset = 0;
};
ProcessQuery process_query_from(const json::Value& arguments);
// The process.table.snapshot.output document for `all` under `q`.
// `cpu_interval_ms` is the window cpu_percent was rated over (rate_cpu_over_window).
json::Document process_list_json(std::vector<ProcessInfo> all, const ProcessQuery& q, int64_t cpu_interval_ms);
json::Document process_detail_json(const ProcessInfo& p);

}  // namespace fleetmcp::device
