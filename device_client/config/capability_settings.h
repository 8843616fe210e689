// Typed access to a capability line's own settings (`capability.gpio17 = gpio.pin line=17 …`),
// which are the capability's allow-list. Every key must be consumed: finish() fails on the first
// one nobody asked for, naming file, line and key, so a typo never silently widens or narrows
// what a capability may touch.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "device_client/config/device_config.h"

namespace fleetmcp::device {

class CapabilitySettings {
 public:
  explicit CapabilitySettings(const CapabilityConfig& cap) : cap_(cap) {}

  std::optional<std::string> text(std::string_view key);
  std::string required_text(std::string_view key, std::string_view example);
  int64_t integer(std::string_view key, int64_t lo, int64_t hi, int64_t fallback);
  int64_t required_integer(std::string_view key, int64_t lo, int64_t hi);
  bool flag(std::string_view key, bool fallback);  // true/false
  // "0x48,0x76" or "72,118": a comma-separated list of integers (hex with 0x) in [lo, hi].
  std::vector<int64_t> integer_list(std::string_view key, int64_t lo, int64_t hi);
  // "sim" or "real". Default: sim on --simulate nodes, real otherwise.
  bool simulated_backend(bool node_is_simulated);

  // Fails on the first setting no accessor read.
  void finish() const;
  [[noreturn]] void fail(std::string_view key, std::string_view what) const;

 private:
  const CapabilitySetting* find(std::string_view key);

  const CapabilityConfig& cap_;
  std::set<std::string, std::less<>> used_;
};

}  // namespace fleetmcp::device
