// The hw_fingerprint sources of a node's manifest (RFC-0001 §2, docs/protocol.md §5): machine_id from
// /etc/machine-id, cpu_serial from /proc/cpuinfo "Serial" or the device tree, mac_primary from
// /sys/class/net; whichever exist, always in that order, so the value is stable across restarts
// (the plugin pins it: check 9).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fleetmcp::device {

using FingerprintSources = std::vector<std::pair<std::string, std::string>>;  // (source, raw value)

// `root` prefixes every path ("" on a device; a fixture directory in tests). Throws
// Error(kInternal) when none of the sources exists: a manifest needs at least one.
FingerprintSources read_hw_fingerprint_sources(const std::string& root = "");

// Simulated nodes share one host, so each gets a synthetic machine_id derived from its node_id:
// distinct per node, stable across restarts.
FingerprintSources simulated_fingerprint_sources(std::string_view node_id);

// "Serial\t\t: 10000000abcdef01" -> "10000000abcdef01"; "" when absent or all zeros.
std::string cpu_serial_from_cpuinfo(std::string_view cpuinfo);

}  // namespace fleetmcp::device
