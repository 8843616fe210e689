#include "device_client/simulated/simulated_catalogue.h"

namespace fleetmcp::device {

const std::vector<std::pair<std::string, std::string>>& simulated_catalogue_lines() {
  static const std::vector<std::pair<std::string, std::string>> lines{
      {"capability.info", "system.info"},
      {"capability.health", "system.health"},
      {"capability.net", "network.status"},
      {"capability.procs", "process.table"},
      {"capability.nginx", "service.unit unit=nginx.service"},
      {"capability.app", "logs.journal units=fleetmcp-device.service,nginx.service"},
      {"capability.audit", "logs.audit"},
      {"capability.gpio17", "gpio.pin line=17"},
      {"capability.button", "gpio.pin line=27 writable=false"},
      {"capability.pwm0", "gpio.pwm chip=0 channel=0 pin=18"},
      {"capability.i2c1", "i2c.bus bus=1 addresses=0x48,0x76,0x77 readable_registers=0x10,0xf4 sim_devices=0x48,0x76"},
      {"capability.camera0", "camera.still max_files=20"},
      {"capability.reboot", "system.power action=reboot"},
      {"capability.server", "manage.server update_unit=fleetmcp-update.service"},
  };
  return lines;
}

void add_simulated_catalogue(DeviceConfig& config) {
  std::vector<ConfigEntry> entries;
  int line = 0;
  for (const auto& [key, value] : simulated_catalogue_lines()) {
    const std::string_view cap_id = std::string_view(key).substr(std::string_view("capability.").size());
    bool taken = false;
    for (const auto& cap : config.capabilities) taken = taken || cap.cap_id == cap_id;
    if (!taken) entries.push_back({"--catalogue", ++line, key, value});
  }
  if (entries.empty()) return;
  // parse_device_config needs a complete file; only its capabilities are taken from the result.
  entries.push_back({"--catalogue", 0, "node_id", config.node_id});
  entries.push_back({"--catalogue", 0, "tenant", config.tenant});
  entries.push_back({"--catalogue", 0, "broker", config.broker_uri});
  for (const char* k : {"key", "cert", "ca"}) entries.push_back({"--catalogue", 0, k, "/unused"});
  DeviceConfig extra = parse_device_config(entries, "--catalogue", "/");
  for (auto& cap : extra.capabilities) config.capabilities.push_back(std::move(cap));
}

}  // namespace fleetmcp::device
