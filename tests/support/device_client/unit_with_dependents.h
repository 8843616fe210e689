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
  Result<ServiceStatus> status() override {
    return ServiceStatus{.name = "dbus.service", .status = running ? "active" : "inactive"};
  }
  Status act(std::string_view action) override {
    running = action != "stop";
    return {};
  }
  Status set_enabled(bool) override {
    ++enables;
    return {};
  }
  Result<std::vector<std::string>> active_dependents() override {
    return std::vector<std::string>{"NetworkManager.service", "bluetooth.service"};
  }
  bool running = true;
  int enables = 0;
};

}  // namespace fleetmcp::device::testing
