// What system.info and system.health read besides HostMetrics: the board model, OS release, the
// CPU temperature by the fallback chain of Doc 05 §4.3 and the firmware's throttling word. Readers
// take the filesystem root ("" on a device) so the unit tests run them on recorded trees under
// tests/fixtures/catalogue/; parsers are pure functions over text.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/text.h"

namespace fleetmcp::device {

struct OsRelease {
  std::string name, version;
};
// /etc/os-release: NAME and VERSION_ID (falling back to VERSION), quotes removed.
OsRelease parse_os_release(std::string_view text);

// The board: device-tree model (every Pi has one), else DMI product name, else /proc/cpuinfo's
// "Model" or "model name", else "unknown".
std::string read_model(const std::string& root);

// /proc/sys/kernel/hostname, "localhost" when unreadable.
std::string read_hostname(const std::string& root);

struct BasicInfo {
  std::string hostname, model, cpu_arch, os_name, os_version, kernel_version;
  int cpu_cores = 1;
  uint64_t memory_total_bytes = 0;
  int64_t uptime_seconds = 0;
};
BasicInfo read_basic_info(const std::string& root);

// Runs a fixed helper program (vcgencmd) and returns its stdout, or nullopt when it is absent or
// fails. A seam so tests substitute recorded output.
using CommandRunner = std::function<std::optional<std::string>(const std::vector<std::string>& argv)>;
// posix_spawn, at most 4 KiB of output, the program must exist at argv[0].
std::optional<std::string> run_helper(const std::vector<std::string>& argv);

struct Temperature {
  double celsius = 0;
  std::string source;  // thermal_zone, vcgencmd, hwmon
};
// "temp=47.2'C" → 47.2
std::optional<double> parse_vcgencmd_temp(std::string_view text);
// Doc 05 §4.3: thermal_zone0, then `vcgencmd measure_temp`, then the first readable
// hwmon*/temp*_input. (Its fourth step, psutil, has no equivalent outside Python.)
std::optional<Temperature> read_cpu_temperature(const std::string& root, const CommandRunner& run);

struct ThrottleFlags {
  bool under_voltage = false, freq_capped = false, throttled = false;
};
// "throttled=0x50005" (vcgencmd) or "50005" / "0x50005" (sysfs get_throttled): bits 0, 1, 2.
std::optional<ThrottleFlags> parse_throttled(std::string_view text);
// sysfs get_throttled of the Pi firmware driver, else `vcgencmd get_throttled`; nullopt off a Pi.
std::optional<ThrottleFlags> read_throttling(const std::string& root, const CommandRunner& run);

// The whole file, or nullopt; at most 64 KiB (these are small kernel files).
std::optional<std::string> read_small_file(const std::string& path);
// What trim() (common/base/text.h) strips from a kernel file: blanks, the trailing newline, and the
// NUL that ends a device-tree string.
inline constexpr std::string_view kKernelTextBlanks{" \t\n\r\0", 5};

}  // namespace fleetmcp::device
