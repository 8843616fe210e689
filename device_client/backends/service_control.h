// One systemd unit behind an interface: systemd's D-Bus API through sd-bus on a device
// (sd_bus_service_control.cc), a unit in memory on --simulate nodes. The unit is the capability's
// allow-listed `unit=` setting; nothing here can name another.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"

namespace fleetmcp::device {

// The unit's properties in the text form `systemctl show` prints them (Key=Value), which is also
// what the sd-bus backend renders D-Bus values to: one parser serves recorded fixtures and the bus.
using UnitProperties = std::map<std::string, std::string, std::less<>>;
UnitProperties parse_systemctl_show(std::string_view text);

struct ServiceStatus {
  std::string name, description;
  std::string status, sub_status;  // ActiveState, SubState
  std::string unit_file_state;     // "" when systemd reports none
  bool enabled = false;
  int64_t pid = 0;
  std::optional<uint64_t> memory_bytes;
  std::optional<int64_t> uptime_seconds;
  std::optional<int64_t> restart_count;
  std::string fragment_path;
  // Doc 05 addendum §2.1 preset and §2.2 user, group, working_directory, restart_policy: the
  // configuration that holds no secret ("" when systemd reports none; D35).
  std::string preset, user, group, working_directory, restart_policy;
  bool can_start = false, can_stop = false, can_reload = false;
};

// not_found when LoadState says the unit does not exist. `now_us` (CLOCK_REALTIME µs) turns
// ActiveEnterTimestamp ("@<unix seconds>", as `systemctl show --timestamp=unix` prints it) into
// uptime_seconds for an active unit.
Result<ServiceStatus> service_status_from(const UnitProperties& p, uint64_t now_us);

// Doc 05 addendum §6.1: the services that need a unit are those in its RequiredBy, BoundBy and
// WantedBy (targets and other unit types are not services, and every enabled service is wanted by
// one). Sorted, without duplicates, only names is_service_unit_name accepts.
std::vector<std::string> dependent_service_names(const UnitProperties& p);
// Whether an ActiveState counts as running for that check: active, reloading or activating.
bool is_running_state(std::string_view active_state);

class ServiceControl {
 public:
  virtual ~ServiceControl() = default;
  // Each refuses with the Doc 05 §9.1 envelope (systemd unreachable, refused, no such unit).
  virtual Result<ServiceStatus> status() = 0;
  // start, stop, restart or reload; returns once systemd has queued the job.
  virtual Status act(std::string_view action) = 0;
  virtual Status set_enabled(bool enabled) = 0;
  // The dependent services (dependent_service_names) that are running now: stopping or disabling
  // the unit would break them.
  virtual Result<std::vector<std::string>> active_dependents() = 0;
};

std::unique_ptr<ServiceControl> make_simulated_service(std::string unit);
std::unique_ptr<ServiceControl> make_sd_bus_service(std::string unit);

}  // namespace fleetmcp::device
