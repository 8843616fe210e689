#include "device_client/config/device_config.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "common/ids/ulid.h"

namespace fleetmcp::device {
namespace {

using Setter = std::function<void(DeviceConfig&, const ConfigEntry&, std::string_view base_dir)>;

bool is_cap_id(std::string_view s) {
  if (s.empty() || s.size() > 18 || s[0] < 'a' || s[0] > 'z') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

bool is_printable_token(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (c <= 0x20 || c > 0x7E) return false;
  }
  return true;
}

std::string path_value(const ConfigEntry& e, std::string_view base_dir) {
  if (e.value.empty()) e.fail("a path is required");
  return resolve_path(base_dir, e.value);
}

// `labels = site=lab,door`: at most 16, each once, in manifest@1.4.0's grammar.
std::vector<std::string> node_labels(const ConfigEntry& e) {
  std::vector<std::string> labels;
  std::string_view rest = e.value;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string label(rest.substr(0, comma));
    if (!is_node_label(label)) e.fail("each label is 1-63 letters, digits or ._:=/- starting with a letter or digit");
    if (std::find(labels.begin(), labels.end(), label) != labels.end()) e.fail("label " + label + " is given twice");
    labels.push_back(label);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  if (labels.size() > 16) e.fail("at most 16 labels");
  return labels;
}

// The keys a device.conf may hold, besides capability.<cap_id>.
const std::map<std::string, Setter, std::less<>>& setters() {
  static const std::map<std::string, Setter, std::less<>> table{
      {"node_id", [](DeviceConfig& c, const ConfigEntry& e, std::string_view) {
         if (!is_node_id(e.value)) e.fail("must be a lowercase 26-character ULID");
         c.node_id = e.value;
       }},
      {"tenant", [](DeviceConfig& c, const ConfigEntry& e, std::string_view) {
         if (!is_printable_token(e.value)) e.fail("must be 1-64 printable ASCII characters, no spaces");
         c.tenant = e.value;
       }},
      {"broker", [](DeviceConfig& c, const ConfigEntry& e, std::string_view) {
         c.paho_uri = paho_server_uri(e);
         c.broker_uri = e.value;
       }},
      {"key", [](DeviceConfig& c, const ConfigEntry& e, std::string_view b) { c.key_file = path_value(e, b); }},
      {"cert", [](DeviceConfig& c, const ConfigEntry& e, std::string_view b) { c.cert_file = path_value(e, b); }},
      {"ca", [](DeviceConfig& c, const ConfigEntry& e, std::string_view b) { c.ca_file = path_value(e, b); }},
      {"schema_dir", [](DeviceConfig& c, const ConfigEntry& e, std::string_view b) { c.schema_dir = path_value(e, b); }},
      {"telemetry_interval_ms", [](DeviceConfig& c, const ConfigEntry& e, std::string_view) {
         c.telemetry_interval_ms = e.as_int(1000, 3'600'000);
       }},
      // Never over 24 h (RFC-0001 decision #6); the floor only keeps refreshes sane in tests.
      {"manifest_ttl_s", [](DeviceConfig& c, const ConfigEntry& e, std::string_view) {
         c.manifest_ttl_s = e.as_int(4, 86'400);
       }},
      {"hostname", [](DeviceConfig& c, const ConfigEntry& e, std::string_view) {
         if (!is_host_name(e.value)) e.fail("must be a host name such as pi-kitchen or pi4.lab.example");
         c.hostname = e.value;
       }},
      {"labels", [](DeviceConfig& c, const ConfigEntry& e, std::string_view) { c.labels = node_labels(e); }},
      {"keepalive_s", [](DeviceConfig& c, const ConfigEntry& e, std::string_view) {
         c.keepalive_s = e.as_int(5, 3600);
       }},
      {"reconnect_min_ms", [](DeviceConfig& c, const ConfigEntry& e, std::string_view) {
         c.reconnect_min_ms = e.as_int(100, 600'000);
       }},
      {"reconnect_max_ms", [](DeviceConfig& c, const ConfigEntry& e, std::string_view) {
         c.reconnect_max_ms = e.as_int(100, 3'600'000);
       }},
  };
  return table;
}

// A sub-entry for one `name=value` token of a capability line, so the shared ConfigEntry
// parsers produce "<file>:<line>: capability.echo.max_concurrency: …".
ConfigEntry token_entry(const ConfigEntry& line, std::string_view name, std::string_view value) {
  ConfigEntry e = line;
  e.key = line.key + "." + std::string(name);
  e.value = std::string(value);
  return e;
}

void apply_capability_token(CapabilityConfig& cap, std::string_view token) {
  const auto eq = token.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    cap.fail("expected name=value after the kind, got a bare word");
  }
  const std::string_view name = token.substr(0, eq), value = token.substr(eq + 1);
  const ConfigEntry e = token_entry(cap.entry, name, value);
  if (name == "rate_limit_rps") {
    cap.constraints.rate_limit_rps = e.as_number(0.001, 1000);
    cap.rate_given = true;
  } else if (name == "max_concurrency") {
    cap.constraints.max_concurrency = static_cast<int>(e.as_int(1, 1024));
    cap.concurrency_given = true;
  } else if (name == "deadline_ms_default") {
    cap.constraints.deadline_ms_default = static_cast<int>(e.as_int(50, 30'000));
    cap.deadline_given = true;
  } else {
    for (const auto& s : cap.settings) {
      if (s.key == name) e.fail("given twice");
    }
    cap.settings.push_back({std::string(name), std::string(value)});
  }
}

CapabilityConfig parse_capability(const ConfigEntry& e) {
  CapabilityConfig cap;
  cap.entry = e;
  cap.cap_id = e.key.substr(std::string_view("capability.").size());
  if (!is_cap_id(cap.cap_id)) {
    e.fail("cap_id must match ^[a-z][a-z0-9_]{0,17}$ (RFC-0001 section 3)");
  }
  // RFC-0005 section 9 nominal values; the manifest requires rate_limit_rps, so there is always one.
  cap.constraints.rate_limit_rps = 10;
  cap.constraints.max_concurrency = 1;
  cap.constraints.deadline_ms_default = 2000;
  std::istringstream words(e.value);
  if (!(words >> cap.kind)) e.fail("expected '<kind> [name=value ...]', e.g. 'system.echo max_concurrency=4'");
  for (std::string token; words >> token;) apply_capability_token(cap, token);
  return cap;
}

[[noreturn]] void missing(std::string_view file, std::string_view key) {
  throw Error(ErrorCode::kBadRequest,
              std::string(file) + ": " + std::string(key) + ": required key is missing",
              "add '" + std::string(key) + " = ...' (fleetctl pki enroll writes a complete file)");
}

void check_complete(const DeviceConfig& c, std::string_view file) {
  if (c.node_id.empty()) missing(file, "node_id");
  if (c.tenant.empty()) missing(file, "tenant");
  if (c.broker_uri.empty()) missing(file, "broker");
  if (c.key_file.empty()) missing(file, "key");
  if (c.cert_file.empty()) missing(file, "cert");
  if (c.ca_file.empty()) missing(file, "ca");
  if (c.capabilities.empty()) missing(file, "capability.<cap_id>");
  if (c.reconnect_max_ms < c.reconnect_min_ms) {
    throw Error(ErrorCode::kBadRequest,
                std::string(file) + ": reconnect_max_ms: smaller than reconnect_min_ms",
                "make reconnect_max_ms at least reconnect_min_ms");
  }
}

}  // namespace

std::string resolve_path(std::string_view base_dir, std::string_view path) {
  if (path.empty() || path.front() == '/' || base_dir.empty()) return std::string(path);
  std::string out(base_dir);
  if (out.back() != '/') out += '/';
  out += path;
  return out;
}

std::string paho_server_uri(const ConfigEntry& e) {
  std::string_view v = e.value;
  for (std::string_view scheme : {"mqtts://", "ssl://"}) {
    if (v.substr(0, scheme.size()) != scheme) continue;
    const std::string_view rest = v.substr(scheme.size());
    const auto colon = rest.rfind(':');
    const auto bracket = rest.rfind(']');  // [IPv6]:port
    const bool has_port = colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket);
    if (rest.empty() || colon == 0) e.fail("expected mqtts://<host>:<port>");
    if (!has_port) return "ssl://" + std::string(rest) + ":8883";
    token_entry(e, "port", rest.substr(colon + 1)).as_int(1, 65535);
    return "ssl://" + std::string(rest);
  }
  e.fail("must be an mqtts:// URI: a device connects only over mutual TLS (docs/protocol.md section 2)");
}

DeviceConfig parse_device_config(const std::vector<ConfigEntry>& entries, std::string_view file,
                                 std::string_view base_dir) {
  DeviceConfig config;
  config.file = std::string(file);
  std::set<std::string, std::less<>> seen;
  for (const ConfigEntry& e : entries) {
    if (!seen.insert(e.key).second) e.fail("given twice; keep one");
    if (e.key.rfind("capability.", 0) == 0) {
      config.capabilities.push_back(parse_capability(e));
      continue;
    }
    const auto it = setters().find(e.key);
    if (it == setters().end()) e.fail("unknown key (see docs/device-client.md for the keys)");
    it->second(config, e, base_dir);
  }
  check_complete(config, file);
  return config;
}

DeviceConfig load_device_config(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string base_dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  return parse_device_config(read_config_file(path).value(), path, base_dir);
}

}  // namespace fleetmcp::device
