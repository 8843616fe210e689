#include "device_client/node/service_notifier.h"

#include <systemd/sd-daemon.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "device_client/session/event_log.h"

namespace fleetmcp::device {

void ServiceNotifier::ready(TimerQueue& timers) {
  sd_notify(0, "READY=1");
  // libsystemd reads WatchdogSec= (WATCHDOG_USEC) and whether it is meant for this process
  // (WATCHDOG_PID, so a child does not keep its parent's watchdog happy).
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0) return;
  // Half the period, as systemd recommends, so one late turn of the loop does not trip it; never
  // below a millisecond (the TimerQueue's resolution).
  const auto period = std::max(std::chrono::milliseconds(usec / 2000), std::chrono::milliseconds(1));
  log_info("", "watchdog.enabled", "pinging systemd's watchdog every " + std::to_string(period.count()) + " ms");
  ping(timers, period);
}

void ServiceNotifier::ping(TimerQueue& timers, std::chrono::milliseconds period) {
  if (stopping_) return;
  sd_notify(0, "WATCHDOG=1");
  timers.after(period, [this, &timers, period] { ping(timers, period); });
}

void ServiceNotifier::ready_and_alive() { sd_notify(0, "READY=1\nWATCHDOG=1"); }

void ServiceNotifier::status(std::string_view text) { sd_notify(0, ("STATUS=" + std::string(text)).c_str()); }

void ServiceNotifier::stopping() {
  stopping_ = true;
  sd_notify(0, "STOPPING=1");
}

}  // namespace fleetmcp::device
