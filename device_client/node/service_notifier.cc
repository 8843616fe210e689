#include "device_client/node/service_notifier.h"

#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "device_client/session/event_log.h"
#include "device_client/session/watchdog_pace.h"

namespace fleetmcp::device {
namespace {

std::optional<std::string_view> environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::optional<std::string_view>(value) : std::nullopt;
}

}  // namespace

void ServiceNotifier::ready(TimerQueue& timers) {
  sd_notify(0, "READY=1");
  const auto period = watchdog_ping_period(environment("WATCHDOG_USEC"), environment("WATCHDOG_PID"), getpid());
  if (!period) return;
  log_info("", "watchdog.enabled", "pinging systemd's watchdog every " + std::to_string(period->count()) + " ms");
  ping(timers, *period);
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
