// How often the event loop (the TimerQueue thread) tells systemd's watchdog it is alive. systemd
// hands the unit's WatchdogSec= to the process as WATCHDOG_USEC, and WATCHDOG_PID names the
// process meant when it is set (sd_watchdog_enabled(3)). The ping goes at half that period, as
// systemd recommends, so one late turn of the loop does not trip it.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace fleetmcp::device {

// The ping period for these environment values, nullopt when there is no watchdog for `self_pid`:
// WATCHDOG_USEC missing, not a positive number of microseconds, or WATCHDOG_PID naming another
// process (a child would otherwise keep its parent's watchdog happy).
std::optional<std::chrono::milliseconds> watchdog_ping_period(std::optional<std::string_view> watchdog_usec,
                                                             std::optional<std::string_view> watchdog_pid,
                                                             long self_pid);

}  // namespace fleetmcp::device
