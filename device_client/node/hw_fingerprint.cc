#include "device_client/node/hw_fingerprint.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>

#include "common/crypto/digest.h"
#include "common/base/error.h"
#include "common/base/file_text.h"

namespace fleetmcp::device {
namespace {

// Trims whitespace and the NUL the device tree puts after strings.
std::string trimmed(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

bool all_zero(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == '0' || c == ':'; });
}

std::string cpu_serial(const std::string& root) {
  std::string serial = cpu_serial_from_cpuinfo(try_read_file(root + "/proc/cpuinfo").value_or(""));
  if (serial.empty()) serial = trimmed(try_read_file(root + "/sys/firmware/devicetree/base/serial-number").value_or(""));
  return all_zero(serial) ? std::string() : serial;
}

std::vector<std::string> interface_names(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != ".." && name != "lo") names.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The first interface (by name) backed by a real device (…/device exists), so a bridge or veth
// created later cannot change the fingerprint; failing that, the first with any MAC.
std::string primary_mac(const std::string& root) {
  const std::string dir = root + "/sys/class/net";
  std::string fallback;
  for (const std::string& name : interface_names(dir)) {
    const std::string mac = trimmed(try_read_file(dir + "/" + name + "/address").value_or(""));
    if (mac.size() != 17 || all_zero(mac)) continue;
    if (std::ifstream(dir + "/" + name + "/device/uevent")) return mac;
    if (fallback.empty()) fallback = mac;
  }
  return fallback;
}

}  // namespace

std::string cpu_serial_from_cpuinfo(std::string_view text) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || trimmed(line.substr(0, colon)) != "Serial") continue;
    const std::string serial = trimmed(line.substr(colon + 1));
    return all_zero(serial) ? std::string() : serial;
  }
  return {};
}

FingerprintSources read_hw_fingerprint_sources(const std::string& root) {
  FingerprintSources sources;
  if (std::string id = trimmed(try_read_file(root + "/etc/machine-id").value_or("")); !id.empty() && !all_zero(id)) {
    sources.emplace_back("machine_id", id);
  }
  if (std::string serial = cpu_serial(root); !serial.empty()) sources.emplace_back("cpu_serial", serial);
  if (std::string mac = primary_mac(root); !mac.empty()) sources.emplace_back("mac_primary", mac);
  if (sources.empty()) {
    throw Error(ErrorCode::kInternal,
                "no hardware fingerprint source: no /etc/machine-id, no CPU serial, no network MAC",
                "create /etc/machine-id (systemd-machine-id-setup) and restart fleetmcp-device");
  }
  return sources;
}

FingerprintSources simulated_fingerprint_sources(std::string_view node_id) {
  const std::string id = blake3_256_hex("fleetmcp simulated machine-id " + std::string(node_id)).substr(0, 32);
  return {{"machine_id", id}};
}

}  // namespace fleetmcp::device
