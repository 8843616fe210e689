#include "device_client/commands/catalogue_kinds.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "common/ids/unit_name.h"
#include "device_client/commands/audit_handler.h"
#include "device_client/peripherals/camera_handler.h"
#include "device_client/backends/camera_helper.h"
#include "device_client/config/capability_settings.h"
#include "device_client/peripherals/gpio_handler.h"
#include "device_client/peripherals/i2c_handler.h"
#include "device_client/handlers/info_handlers.h"
#include "device_client/handlers/log_handler.h"
#include "device_client/handlers/power_handler.h"
#include "device_client/peripherals/pwm_handler.h"
#include "device_client/handlers/server_handler.h"
#include "device_client/handlers/service_handler.h"
#include "device_client/handlers/system_handlers.h"
#include "device_client/update/package_version.h"

namespace fleetmcp::device {
namespace {

using Made = std::unique_ptr<ToolHandler>;

// manage.server's default deadline, the kind's ceiling: invoke waits for the update script to read
// the channel's index (apt-get update), seconds on a Pi Zero even from a near mirror.
constexpr int64_t kServerDeadlineMs = 10000;

std::string unit_setting(CapabilitySettings& s, std::string_view key, std::string value) {
  if (!is_unit_name(value)) s.fail(key, "must be a systemd unit name such as nginx.service");
  return value;
}

std::vector<std::string> unit_list(CapabilitySettings& s, std::string_view key) {
  std::vector<std::string> units;
  const std::string listed = s.required_text(key, "fleetmcp-device.service,nginx.service");
  std::string_view rest = listed;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    units.push_back(unit_setting(s, key, std::string(rest.substr(0, comma))));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  if (units.size() > 16) s.fail(key, "at most 16 units");
  return units;
}

// The handler with its manifest label (tool_handler.h): what the capability's settings name.
Made labelled(Made handler, std::string label) {
  handler->set_label(std::move(label));
  return handler;
}

std::string hex_byte(int64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return std::string("0x") + kDigits[(value >> 4) & 0xf] + kDigits[value & 0xf];
}

Made no_settings(const CapabilityConfig& cap, Made handler) {
  CapabilitySettings s(cap);
  s.finish();
  return handler;
}

Made gpio(const CapabilityConfig& cap, const NodeServices& n) {
  CapabilitySettings s(cap);
  const int line = static_cast<int>(s.required_integer("line", 0, 1023));
  const std::string chip = s.text("chip").value_or("gpiochip0");
  const bool writable = s.flag("writable", true);
  const bool sim = s.simulated_backend(n.simulated);
  s.finish();
  auto backend = sim ? make_simulated_gpio_line() : make_gpiod_line(chip, static_cast<unsigned>(line));
  // A Pi's header pins are the lines of gpiochip0, numbered as BCM numbers.
  const std::string where = chip == "gpiochip0" ? "BCM " + std::to_string(line) : chip + " line " + std::to_string(line);
  return labelled(std::make_unique<GpioHandler>(std::move(backend), line, writable, n.timers),
                  where + (writable ? ", output" : ", input"));
}

Made pwm(const CapabilityConfig& cap, const NodeServices& n) {
  CapabilitySettings s(cap);
  const int chip = static_cast<int>(s.integer("chip", 0, 64, 0));
  const int channel = static_cast<int>(s.integer("channel", 0, 64, 0));
  const int pin = static_cast<int>(s.integer("pin", 0, 1023, 18));
  const bool sim = s.simulated_backend(n.simulated);
  s.finish();
  auto backend = sim ? make_simulated_pwm_channel() : make_sysfs_pwm_channel("/sys/class/pwm", chip, channel);
  return labelled(std::make_unique<PwmHandler>(std::move(backend), pin),
                  "BCM " + std::to_string(pin) + ", pwmchip" + std::to_string(chip) + " channel " + std::to_string(channel));
}

Made i2c(const CapabilityConfig& cap, const NodeServices& n) {
  CapabilitySettings s(cap);
  const int bus = static_cast<int>(s.required_integer("bus", 0, 255));
  const auto listed = s.integer_list("addresses", 0, 127);
  if (listed.empty()) s.fail("addresses", "required: the 7-bit addresses this capability may touch, e.g. 0x48,0x76");
  const bool writable = s.flag("writable", true);
  const auto readable = s.integer_list("readable_registers", 0, 255);
  auto present = s.integer_list("sim_devices", 0, 127);
  const bool sim = s.simulated_backend(n.simulated);
  s.finish();
  std::set<int> allowed(listed.begin(), listed.end());
  if (present.empty()) present.assign(listed.begin(), listed.end());
  auto backend = sim ? make_simulated_i2c_bus(std::vector<int>(present.begin(), present.end())) : make_i2c_dev_bus(bus);
  std::string label = "bus " + std::to_string(bus) + ",";
  for (const int64_t address : allowed) label += " " + hex_byte(address);
  if (label.size() > 64) label = "bus " + std::to_string(bus) + ", " + std::to_string(allowed.size()) + " addresses";
  return labelled(std::make_unique<I2cHandler>(std::move(backend), bus, std::move(allowed),
                                               std::set<int>(readable.begin(), readable.end()), writable),
                  std::move(label));
}

Made service(const CapabilityConfig& cap, const NodeServices& n) {
  CapabilitySettings s(cap);
  const std::string unit = unit_setting(s, "unit", s.required_text("unit", "nginx.service"));
  const bool sim = s.simulated_backend(n.simulated);
  s.finish();
  return labelled(std::make_unique<ServiceHandler>(sim ? make_simulated_service(unit) : make_sd_bus_service(unit)), unit);
}

Made logs(const CapabilityConfig& cap, const NodeServices& n) {
  CapabilitySettings s(cap);
  auto units = unit_list(s, "units");
  const auto message_bytes = static_cast<size_t>(s.integer("sim_message_bytes", 0, kMaxMessage, 0));
  const bool sim = s.simulated_backend(n.simulated);
  s.finish();
  std::string label;
  for (const std::string& unit : units) label += (label.empty() ? "" : ", ") + unit;
  if (label.size() > 64) label = units.front() + " and " + std::to_string(units.size() - 1) + " more units";
  auto source = sim ? make_simulated_log_source(units, message_bytes) : make_sd_journal_source(units);
  return labelled(std::make_unique<LogHandler>(std::move(source), std::move(units)), std::move(label));
}

std::string default_photo_dir(const NodeServices& n) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp != nullptr && *tmp == '/' ? tmp : "/tmp") + "/fleetmcp-photos/" + n.node_id;
}

Made camera(const CapabilityConfig& cap, const NodeServices& n) {
  CapabilitySettings s(cap);
  const int index = static_cast<int>(s.integer("camera", 0, 15, 0));
  auto dir = s.text("dir");
  const size_t max_files = static_cast<size_t>(s.integer("max_files", 1, 10000, 100));
  const std::string helper = s.text("helper").value_or(default_camera_helper_path());
  const bool sim = s.simulated_backend(n.simulated);
  s.finish();
  if (!dir && !sim) s.fail("dir", "required: the directory photos are written to, e.g. /var/lib/fleetmcp/photos");
  if (dir && dir->front() != '/') s.fail("dir", "must be an absolute path");
  auto store = std::make_unique<PhotoStore>(dir.value_or(default_photo_dir(n)), cap.cap_id, max_files);
  if (helper.front() != '/') s.fail("helper", "must be an absolute path");
  auto source = sim ? make_test_pattern_camera() : make_camera_helper_source(helper, static_cast<unsigned>(index));
  return labelled(std::make_unique<CameraHandler>(std::move(source), std::move(store)), "camera " + std::to_string(index));
}

Made power(const CapabilityConfig& cap, const NodeServices& n) {
  CapabilitySettings s(cap);
  const std::string action = s.required_text("action", "reboot");
  const bool allow_shutdown = s.flag("allow_shutdown", false);
  const bool sim = s.simulated_backend(n.simulated);
  s.finish();
  if (action != "reboot" && action != "shutdown") s.fail("action", "must be reboot or shutdown");
  if (action == "shutdown" && !allow_shutdown) {
    s.fail("action", "shutdown also needs allow_shutdown=true (a powered-off device needs someone on site)");
  }
  return labelled(std::make_unique<PowerHandler>(sim ? make_simulated_power() : make_logind_power(), action, n.node_id), action);
}

// Self-update through apt (device_client/update/self_update.h). The call waits for the update
// script to resolve the version for most of its deadline (a missing version answers not_found).
Made server(const CapabilityConfig& cap, const NodeServices& n) {
  CapabilitySettings s(cap);
  auto unit = s.text("update_unit");
  auto state_dir = s.text("state_dir");
  auto outcome_dir = s.text("outcome_dir");
  auto channels_dir = s.text("channels_dir");
  const bool sim = s.simulated_backend(n.simulated);
  s.finish();
  if (state_dir && state_dir->front() != '/') s.fail("state_dir", "must be an absolute path");
  if (outcome_dir && outcome_dir->front() != '/') s.fail("outcome_dir", "must be an absolute path");
  if (channels_dir && channels_dir->front() != '/') s.fail("channels_dir", "must be an absolute path");
  std::unique_ptr<SelfUpdate> update;
  if (unit) {
    unit_setting(s, "update_unit", *unit);
    SelfUpdateSettings settings;
    if (!sim) {  // a simulated update starts a unit in memory and keeps its state there
      settings.state_dir = state_dir.value_or(std::string(kDefaultUpdateStateDir));
      settings.outcome_dir = outcome_dir.value_or(std::string(kDefaultUpdateOutcomeDir));
      settings.channels_dir = channels_dir.value_or(std::string(kDefaultUpdateChannelsDir));
      const int64_t deadline_ms = cap.deadline_given ? cap.constraints.deadline_ms_default : kServerDeadlineMs;
      settings.resolve_wait_ms = std::max<int64_t>(0, deadline_ms - 1500);
    }
    update = std::make_unique<SelfUpdate>(sim ? make_simulated_service(*unit) : make_sd_bus_service(*unit), settings);
  }
  return std::make_unique<ServerHandler>(n, std::move(update), running_package_version(FLEETMCP_VERSION));
}

// The node's own command audit (command_audit.h says what it keeps and its bounds).
Made audit(const CapabilityConfig& cap, const NodeServices& n) {
  CapabilitySettings s(cap);
  const auto file = s.text("file");
  const auto capacity = static_cast<size_t>(
      s.integer("max_entries", 10, static_cast<int64_t>(CommandAudit::kMaxCapacity),
                static_cast<int64_t>(CommandAudit::kDefaultCapacity)));
  s.finish();
  if (file && file->front() != '/') s.fail("file", "must be an absolute path");
  if (n.audit == nullptr) cap.fail("this node keeps no command audit");
  n.audit->configure(capacity, file.value_or(""));
  return std::make_unique<AuditHandler>(*n.audit);
}

CapabilityConstraints limits(double rps, int concurrency, int deadline_ms) { return {rps, concurrency, deadline_ms}; }

}  // namespace

void add_catalogue_kinds(HandlerCatalogue& c) {
  c.add("system.info", [](const CapabilityConfig& cap, const NodeServices&) {
    return no_settings(cap, std::make_unique<SystemInfoHandler>());
  }, limits(5, 2, 2000));
  c.add("system.health", [](const CapabilityConfig& cap, const NodeServices& n) {
    return no_settings(cap, std::make_unique<HealthHandler>(n));
  }, limits(5, 2, 3000));
  c.add("network.status", [](const CapabilityConfig& cap, const NodeServices&) {
    return no_settings(cap, std::make_unique<NetworkHandler>());
  }, limits(2, 1, 2000));
  c.add("process.table", [](const CapabilityConfig& cap, const NodeServices&) {
    return no_settings(cap, std::make_unique<ProcessHandler>());
  }, limits(2, 1, 3000));
  c.add(std::string(kServiceKind), service, limits(1, 1, 10000));
  c.add(std::string(kLogsKind), logs, limits(2, 1, 3000));
  c.add(std::string(kAuditKind), audit, limits(2, 1, 2000));
  c.add(std::string(kGpioPinKind), gpio, limits(10, 1, 1000));
  c.add(std::string(kPwmKind), pwm, limits(10, 1, 1000));
  c.add(std::string(kI2cKind), i2c, limits(20, 1, 1000));
  c.add(std::string(kCameraKind), camera, limits(0.5, 1, 15000));
  c.add(std::string(kPowerKind), power, limits(0.05, 1, 2000));
  c.add(std::string(kServerKind), server, limits(0.5, 1, kServerDeadlineMs));
}

}  // namespace fleetmcp::device
