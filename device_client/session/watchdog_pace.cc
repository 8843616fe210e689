#include "device_client/session/watchdog_pace.h"

#include <charconv>
#include <cstdint>

namespace fleetmcp::device {
namespace {

std::optional<uint64_t> whole_number(std::string_view text) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::chrono::milliseconds> watchdog_ping_period(std::optional<std::string_view> watchdog_usec,
                                                             std::optional<std::string_view> watchdog_pid,
                                                             long self_pid) {
  if (!watchdog_usec) return std::nullopt;
  const auto usec = whole_number(*watchdog_usec);
  if (!usec || *usec == 0) return std::nullopt;
  if (watchdog_pid) {
    const auto pid = whole_number(*watchdog_pid);
    if (!pid || *pid != static_cast<uint64_t>(self_pid)) return std::nullopt;
  }
  // Half the period, never below a millisecond (the TimerQueue's resolution).
  const auto half = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::microseconds(*usec / 2));
  return std::max(half, std::chrono::milliseconds(1));
}

}  // namespace fleetmcp::device
