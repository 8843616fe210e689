// What fleetmcp-device tells systemd (sd_notify(3); the unit is Type=notify): READY=1 once the
// nodes are started, STATUS= lines for `systemctl status`, and WATCHDOG=1 pings for the unit's
// WatchdogSec=. The pings are a task of the TimerQueue, the loop that runs every node's reconnects,
// telemetry and deadlines: while that loop hangs no ping goes out, and systemd restarts the
// process (Restart=). Outside systemd (no NOTIFY_SOCKET) every call does nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <string_view>

#include "device_client/session/timer_queue.h"

namespace fleetmcp::device {

class ServiceNotifier {
 public:
  // READY=1, then WATCHDOG=1 from `timers`' thread every half WatchdogSec (sd_watchdog_enabled(3)), for
  // as long as the queue runs. `timers` must outlive the pings (the fleet stops it first).
  void ready(TimerQueue& timers);
  // READY=1 and one WATCHDOG=1 now, for a loop of the caller's own that turns more often than the
  // watchdog's period (main's wait for the clock, before the fleet and its timers exist).
  void ready_and_alive();
  // STATUS=<text>: the one line systemctl status shows (e.g. why the node waits).
  void status(std::string_view text);
  // STOPPING=1 and no further pings.
  void stopping();

 private:
  void ping(TimerQueue& timers, std::chrono::milliseconds period);

  std::atomic<bool> stopping_{false};
};

}  // namespace fleetmcp::device
