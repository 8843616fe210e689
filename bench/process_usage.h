// Resident memory and CPU time of another process on this machine (the broker), from /proc: what
// bench/http_load reports around its SSE streams. Linux only, like the rest of the benchmarks.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>

namespace fleetmcp::bench {

// VmRSS in KiB; 0 when the process is gone or unreadable.
int64_t resident_kib(pid_t pid);
// User + system CPU time consumed so far, in seconds.
double cpu_seconds(pid_t pid);

// The --watch option of the load programs: "broker=123,fleet=456" -> {broker: 123, fleet: 456}.
// Throws std::invalid_argument on anything else.
std::map<std::string, pid_t> watch_list(const std::string& text);

}  // namespace fleetmcp::bench
