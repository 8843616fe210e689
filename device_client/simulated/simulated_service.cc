// A systemd service in memory: starts enabled and running, and moves through the same ActiveStates
// a real simple service would (the transitional ones are instantaneous here).
#include <ctime>

#include "device_client/base/catalogue_error.h"
#include "device_client/backends/service_control.h"

namespace fleetmcp::device {
namespace {

uint64_t now_us() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000 + static_cast<uint64_t>(ts.tv_nsec) / 1000;
}

class SimulatedService : public ServiceControl {
 public:
  explicit SimulatedService(std::string unit) : unit_(std::move(unit)) { start(); }

  Result<ServiceStatus> status() override {
    UnitProperties p{{"Id", unit_},
                     {"Description", "Simulated " + unit_},
                     {"LoadState", "loaded"},
                     {"ActiveState", running_ ? "active" : "inactive"},
                     {"SubState", running_ ? "running" : "dead"},
                     {"UnitFileState", enabled_ ? "enabled" : "disabled"},
                     {"MainPID", running_ ? std::to_string(pid_) : "0"},
                     {"MemoryCurrent", running_ ? "4194304" : "18446744073709551615"},
                     {"NRestarts", std::to_string(restarts_)},
                     {"ActiveEnterTimestamp", "@" + std::to_string(started_s_)},
                     {"FragmentPath", "/lib/systemd/system/" + unit_},
                     {"UnitFilePreset", "enabled"},
                     {"User", "www-data"},
                     {"Group", "www-data"},
                     {"WorkingDirectory", "/var/lib/simulated"},
                     {"Restart", "on-failure"},
                     {"CanStart", "yes"},
                     {"CanStop", "yes"},
                     {"CanReload", "no"}};
    return service_status_from(p, now_us());
  }

  Status act(std::string_view action) override {
    if (action == "start") {
      if (!running_) start();
    } else if (action == "stop") {
      running_ = false;
    } else if (action == "restart") {
      start();
      ++restarts_;
    } else {
      // systemd's answer for a unit without ExecReload.
      return failed_precondition("the unit does not support reload", "use restart instead");
    }
    return {};
  }

  Status set_enabled(bool enabled) override {
    enabled_ = enabled;
    return {};
  }

  // A unit in memory has no other units around it.
  Result<std::vector<std::string>> active_dependents() override { return std::vector<std::string>(); }

 private:
  void start() {
    running_ = true;
    pid_ = 1000 + static_cast<int64_t>(++starts_);
    started_s_ = now_us() / 1'000'000;
  }

  const std::string unit_;
  bool running_ = false, enabled_ = true;
  int64_t pid_ = 0, restarts_ = 0;
  uint64_t starts_ = 0, started_s_ = 0;
};

}  // namespace

std::unique_ptr<ServiceControl> make_simulated_service(std::string unit) {
  return std::make_unique<SimulatedService>(std::move(unit));
}

}  // namespace fleetmcp::device
