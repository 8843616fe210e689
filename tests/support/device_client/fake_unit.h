// A ServiceControl double of one systemd unit for the self-update tests.
#pragma once

#include <gtest/gtest.h>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "device_client/backends/service_control.h"

namespace fleetmcp::device::testing {

// fleetmcp-update.service: `on_start` stands for its script; `active` for a run under way.
class FakeUnit : public ServiceControl {
 public:
  FakeUnit(std::function<void()> on_start, bool* active) : on_start_(std::move(on_start)), active_(active) {}
  Result<ServiceStatus> status() override {
    ServiceStatus s;
    s.status = *active_ ? "activating" : "inactive";
    return s;
  }
  Status act(std::string_view action) override {
    EXPECT_EQ(action, "start");
    if (on_start_) on_start_();
    return {};
  }
  Status set_enabled(bool) override { return {}; }
  Result<std::vector<std::string>> active_dependents() override { return std::vector<std::string>(); }

 private:
  std::function<void()> on_start_;
  bool* active_;
};

}  // namespace fleetmcp::device::testing
