// systemd's D-Bus API (org.freedesktop.systemd1, see systemd.dbus(5)) through sd-bus. A bus
// connection per call: sd-bus objects are not thread-safe, calls are rare (the kind's clamp is
// 2/s), and a connection held across a dbus restart would go stale.
#include <systemd/sd-bus.h>

#include <ctime>
#include <memory>

#include "device_client/base/catalogue_error.h"
#include "device_client/backends/service_control.h"

namespace fleetmcp::device {
namespace {

constexpr const char* kSystemd = "org.freedesktop.systemd1";
constexpr const char* kManagerPath = "/org/freedesktop/systemd1";
constexpr const char* kManager = "org.freedesktop.systemd1.Manager";
constexpr const char* kUnit = "org.freedesktop.systemd1.Unit";
constexpr const char* kService = "org.freedesktop.systemd1.Service";

struct BusDeleter {
  void operator()(sd_bus* b) const { sd_bus_flush_close_unref(b); }
};
using Bus = std::unique_ptr<sd_bus, BusDeleter>;

// sd_bus_error freed on scope exit.
struct BusError {
  sd_bus_error e = SD_BUS_ERROR_NULL;
  ~BusError() { sd_bus_error_free(&e); }
  std::string name() const { return e.name != nullptr ? e.name : "unknown"; }
};

struct MessageDeleter {
  void operator()(sd_bus_message* m) const { sd_bus_message_unref(m); }
};
using Message = std::unique_ptr<sd_bus_message, MessageDeleter>;

Result<Bus> open_system_bus() {
  sd_bus* bus = nullptr;
  const int rc = sd_bus_open_system(&bus);
  if (rc < 0) {
    return unavailable("systemd is not reachable over D-Bus: " + errno_text(-rc),
                       "run fleetmcp-device on a systemd host with the system bus, or remove this capability");
  }
  return Bus(bus);
}

ErrorEnvelope failed_call(std::string_view what, const BusError& err, int rc) {
  if (err.name() == "org.freedesktop.DBus.Error.AccessDenied" ||
      err.name() == "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") {
    return permission_denied(std::string(what) + ": systemd refused (" + err.name() + ")",
                             "grant the fleetmcp service user this action in polkit for the allow-listed unit");
  }
  return failed_precondition(std::string(what) + " failed: " + err.name() + ", " + errno_text(-rc),
                             "check the unit with systemctl status on the device");
}

uint64_t now_us() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000 + static_cast<uint64_t>(ts.tv_nsec) / 1000;
}

class SdBusServiceControl : public ServiceControl {
 public:
  explicit SdBusServiceControl(std::string unit) : unit_(std::move(unit)) {}

  Result<ServiceStatus> status() override {
    auto bus = open_system_bus();
    if (!bus) return bus.error();
    const auto path = unit_path(bus->get(), unit_);
    if (!path) return path.error();
    UnitProperties p;
    for (const char* name : {"Id", "Description", "LoadState", "ActiveState", "SubState", "UnitFileState", "FragmentPath",
                             "UnitFilePreset"}) {
      auto value = string_property(bus->get(), *path, kUnit, name);
      if (!value) return value.error();
      p[name] = std::move(value).value();
    }
    for (const char* name : {"CanStart", "CanStop", "CanReload"}) {
      const auto can = trivial_property<int>(bus->get(), *path, kUnit, name, 'b');
      if (!can) return can.error();
      p[name] = *can ? "yes" : "no";
    }
    const auto since = trivial_property<uint64_t>(bus->get(), *path, kUnit, "ActiveEnterTimestamp", 't');
    if (!since) return since.error();
    p["ActiveEnterTimestamp"] = "@" + std::to_string(*since / 1'000'000);
    if (p["LoadState"] != "not-found") {
      const auto pid = trivial_property<uint32_t>(bus->get(), *path, kService, "MainPID", 'u');
      const auto memory = trivial_property<uint64_t>(bus->get(), *path, kService, "MemoryCurrent", 't');
      const auto restarts = trivial_property<uint32_t>(bus->get(), *path, kService, "NRestarts", 'u');
      if (!pid) return pid.error();
      if (!memory) return memory.error();
      if (!restarts) return restarts.error();
      p["MainPID"] = std::to_string(*pid);
      p["MemoryCurrent"] = std::to_string(*memory);
      p["NRestarts"] = std::to_string(*restarts);
      for (const char* name : {"User", "Group", "WorkingDirectory", "Restart"}) {
        auto value = string_property(bus->get(), *path, kService, name);
        if (!value) return value.error();
        p[name] = std::move(value).value();
      }
    }
    return service_status_from(p, now_us());
  }

  Status act(std::string_view action) override {
    const std::string method = action == "start" ? "StartUnit" : action == "stop" ? "StopUnit"
                             : action == "restart" ? "RestartUnit" : "ReloadUnit";
    auto bus = open_system_bus();
    if (!bus) return bus.error();
    BusError err;
    sd_bus_message* reply = nullptr;
    const int rc = sd_bus_call_method(bus->get(), kSystemd, kManagerPath, kManager, method.c_str(), &err.e, &reply, "ss",
                                      unit_.c_str(), "replace");
    Message owned(reply);
    if (rc < 0) return failed_call(method, err, rc);
    return {};
  }

  Result<std::vector<std::string>> active_dependents() override {
    auto bus = open_system_bus();
    if (!bus) return bus.error();
    const auto path = unit_path(bus->get(), unit_);
    if (!path) return path.error();
    UnitProperties p;
    for (const char* name : {"RequiredBy", "BoundBy", "WantedBy"}) {
      auto names = strv_property(bus->get(), *path, name);
      if (!names) return names.error();
      p[name] = std::move(names).value();
    }
    std::vector<std::string> running;
    for (std::string& name : dependent_service_names(p)) {
      const auto dependent = unit_path(bus->get(), name);
      if (!dependent) return dependent.error();
      const auto state = string_property(bus->get(), *dependent, kUnit, "ActiveState");
      if (!state) return state.error();
      if (is_running_state(*state)) running.push_back(std::move(name));
    }
    return running;
  }

  Status set_enabled(bool enabled) override {
    auto bus = open_system_bus();
    if (!bus) return bus.error();
    BusError err;
    sd_bus_message* reply = nullptr;
    const int rc = enabled ? sd_bus_call_method(bus->get(), kSystemd, kManagerPath, kManager, "EnableUnitFiles", &err.e,
                                                &reply, "asbb", 1, unit_.c_str(), 0, 0)
                           : sd_bus_call_method(bus->get(), kSystemd, kManagerPath, kManager, "DisableUnitFiles", &err.e,
                                                &reply, "asb", 1, unit_.c_str(), 0);
    Message owned(reply);
    if (rc < 0) return failed_call(enabled ? "EnableUnitFiles" : "DisableUnitFiles", err, rc);
    BusError reload_err;
    const int reload = sd_bus_call_method(bus->get(), kSystemd, kManagerPath, kManager, "Reload", &reload_err.e, nullptr, "");
    if (reload < 0) return failed_call("Reload", reload_err, reload);
    return {};
  }

 private:
  static Result<std::string> unit_path(sd_bus* bus, const std::string& unit) {
    BusError err;
    sd_bus_message* reply = nullptr;
    const int rc = sd_bus_call_method(bus, kSystemd, kManagerPath, kManager, "LoadUnit", &err.e, &reply, "s", unit.c_str());
    Message owned(reply);
    if (rc < 0) return failed_call("LoadUnit", err, rc);
    const char* path = nullptr;
    if (sd_bus_message_read(reply, "o", &path) < 0 || path == nullptr) return failed_call("LoadUnit", err, -EBADMSG);
    return std::string(path);
  }

  static Result<std::string> string_property(sd_bus* bus, const std::string& path, const char* iface, const char* name) {
    BusError err;
    char* value = nullptr;
    const int rc = sd_bus_get_property_string(bus, kSystemd, path.c_str(), iface, name, &err.e, &value);
    if (rc < 0) return failed_call(std::string("reading ") + name, err, rc);
    std::string out(value != nullptr ? value : "");
    free(value);  // NOLINT: sd-bus allocates with malloc
    return out;
  }

  // A string-array property, joined by spaces as systemctl show prints it.
  static Result<std::string> strv_property(sd_bus* bus, const std::string& path, const char* name) {
    BusError err;
    char** values = nullptr;
    const int rc = sd_bus_get_property_strv(bus, kSystemd, path.c_str(), kUnit, name, &err.e, &values);
    if (rc < 0) return failed_call(std::string("reading ") + name, err, rc);
    std::string joined;
    for (char** v = values; v != nullptr && *v != nullptr; ++v) {
      if (!joined.empty()) joined += ' ';
      joined += *v;
      free(*v);  // NOLINT: sd-bus allocates with malloc
    }
    free(values);  // NOLINT
    return joined;
  }

  template <typename T>
  static Result<T> trivial_property(sd_bus* bus, const std::string& path, const char* iface, const char* name, char type) {
    BusError err;
    T value{};
    const int rc = sd_bus_get_property_trivial(bus, kSystemd, path.c_str(), iface, name, &err.e, type, &value);
    if (rc < 0) return failed_call(std::string("reading ") + name, err, rc);
    return value;
  }

  const std::string unit_;
};

}  // namespace

std::unique_ptr<ServiceControl> make_sd_bus_service(std::string unit) {
  return std::make_unique<SdBusServiceControl>(std::move(unit));
}

}  // namespace fleetmcp::device
