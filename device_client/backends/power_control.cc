// logind (org.freedesktop.login1.Manager.ScheduleShutdown, systemd-logind(8)): the shutdown is
// scheduled by the system, so it happens even if fleetmcp-device is stopped first, and users get
// the usual wall message.
#include <systemd/sd-bus.h>

#include <ctime>

#include "device_client/base/catalogue_error.h"
#include "device_client/backends/power_control.h"

namespace fleetmcp::device {
namespace {

class SimulatedPower : public PowerControl {
 public:
  Status schedule(std::string_view, int64_t) override { return {}; }  // nothing to take down
};

class LogindPower : public PowerControl {
 public:
  Status schedule(std::string_view action, int64_t delay_seconds) override {
    sd_bus* bus = nullptr;
    if (const int rc = sd_bus_open_system(&bus); rc < 0) {
      return unavailable("logind is not reachable over D-Bus: " + errno_text(-rc),
                         "run fleetmcp-device on a systemd host with the system bus");
    }
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    const uint64_t at_us = (static_cast<uint64_t>(ts.tv_sec) + static_cast<uint64_t>(delay_seconds)) * 1'000'000;
    sd_bus_error err = SD_BUS_ERROR_NULL;
    const int rc = sd_bus_call_method(bus, "org.freedesktop.login1", "/org/freedesktop/login1",
                                      "org.freedesktop.login1.Manager", "ScheduleShutdown", &err, nullptr, "st",
                                      action == "reboot" ? "reboot" : "poweroff", at_us);
    const std::string name = err.name != nullptr ? err.name : "unknown";
    sd_bus_error_free(&err);
    sd_bus_flush_close_unref(bus);
    if (rc < 0) {
      return failed_precondition("logind refused ScheduleShutdown: " + name + ", " + errno_text(-rc),
                                 "allow org.freedesktop.login1.reboot / power-off for the service user in polkit");
    }
    return {};
  }
};

}  // namespace

std::unique_ptr<PowerControl> make_simulated_power() { return std::make_unique<SimulatedPower>(); }
std::unique_ptr<PowerControl> make_logind_power() { return std::make_unique<LogindPower>(); }

}  // namespace fleetmcp::device
