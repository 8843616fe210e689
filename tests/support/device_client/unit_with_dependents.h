// A ServiceControl double of a unit other running services depend on.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "device_client/backends/service_control.h"

namespace fleetmcp::device::testing {

// A unit with running dependents, in memory: what the sd-bus backend reports on a device.
class UnitWithDependents : public ServiceControl {
 public:
  ServiceStatus status() override { return ServiceStatus{.name = "dbus.service", .status = running ? "active" : "inactive"}; }
  void act(std::string_view action) override { running = action != "stop"; }
  void set_enabled(bool) override { ++enables; }
  std::vector<std::string> active_dependents() override { return {"NetworkManager.service", "bluetooth.service"}; }
  bool running = true;
  int enables = 0;
};

}  // namespace fleetmcp::device::testing
