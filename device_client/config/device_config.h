// device.conf (docs/CONTRIBUTING.md "Device configuration format"), as `fleetctl pki enroll` writes
// it. Every error names the file, the line and the key, because the person reading it is usually
// at a Pi's console with the file open in an editor.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/config_file.h"
#include "common/protocol/manifest.h"

namespace fleetmcp::device {

inline constexpr std::string_view kDefaultConfigPath = "/etc/fleetmcp/device.conf";

// `capability.<cap_id> = <kind> [constraint=value …] [key=value …]`
struct CapabilitySetting {
  std::string key, value;
};

struct CapabilityConfig {
  std::string cap_id, kind;
  CapabilityConstraints constraints;
  // Which constraints the line gave; the others take the kind's defaults (HandlerCatalogue).
  bool rate_given = false, concurrency_given = false, deadline_given = false;
  std::vector<CapabilitySetting> settings;  // the capability's own keys (allow-lists …)
  ConfigEntry entry;                        // where it was written, for error messages

  // Throws Error(kBadRequest) "<file>:<line>: capability.<cap_id>: <what>".
  [[noreturn]] void fail(std::string_view what) const { entry.fail(what); }
};

struct DeviceConfig {
  std::string file;  // the path it was read from
  std::string node_id, tenant;
  std::string broker_uri;  // as written: mqtts://host:port
  std::string paho_uri;    // the same, as Paho C spells it: ssl://host:port
  std::string key_file, cert_file, ca_file;  // absolute, or relative to the working directory
  std::string schema_dir;                    // "" = SchemaRegistry::default_dir()
  int64_t telemetry_interval_ms = 5000;
  int64_t manifest_ttl_s = 3600;
  int64_t keepalive_s = 30;
  int64_t reconnect_min_ms = 2000, reconnect_max_ms = 60000;
  // What the manifest tells people about the node (manifest@1.4.0): `hostname` ("" = the host's
  // own name) and the operator's `labels = site=lab,door`.
  std::string hostname;
  std::vector<std::string> labels;
  std::vector<CapabilityConfig> capabilities;
};

DeviceConfig load_device_config(const std::string& path);
// `base_dir` is what relative paths resolve against (the config file's directory).
DeviceConfig parse_device_config(const std::vector<ConfigEntry>& entries, std::string_view file,
                                 std::string_view base_dir);

// "mqtts://host:port" (or ssl://) -> the "ssl://host:port" form Paho C accepts. Throws on any
// other scheme: a device only ever talks mTLS.
std::string paho_server_uri(const ConfigEntry& entry);

// Resolves `path` against `base_dir` unless it is absolute.
std::string resolve_path(std::string_view base_dir, std::string_view path);

}  // namespace fleetmcp::device
