#include "broker_plugin/core/plugin_options.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "common/base/error.h"

namespace fleetmcp::plugin {
namespace {

[[noreturn]] void fail(std::string_view key, std::string_view what, std::string_view fix) {
  throw Error(ErrorCode::kBadRequest, "plugin_opt_" + std::string(key) + ": " + std::string(what), fix);
}

std::string readable_directory(std::string_view key, const std::string& path) {
  std::error_code ec;
  if (path.empty()) fail(key, "is empty", "give a directory path");
  if (!std::filesystem::is_directory(path, ec)) {
    fail(key, path + " is not a directory", "check the path and that the broker's user may read it");
  }
  return path;
}

std::string readable_file(std::string_view key, const std::string& path) {
  if (path.empty()) fail(key, "is empty", "give a file path");
  if (!std::ifstream(path).good()) {
    fail(key, "cannot read " + path, "check the path and that the broker's user may read it");
  }
  return path;
}

int64_t integer(std::string_view key, const std::string& value, int64_t min, int64_t max) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v < min || v > max) {
    fail(key, "'" + value + "' is not an integer from " + std::to_string(min) + " to " + std::to_string(max),
         "write a whole number in that range");
  }
  return v;
}

bool boolean(std::string_view key, const std::string& value) {
  if (value == "true" || value == "yes" || value == "on" || value == "1") return true;
  if (value == "false" || value == "no" || value == "off" || value == "0") return false;
  fail(key, "'" + value + "' is not true or false", "write true or false");
}

using Setter = std::function<void(PluginOptions&, const std::string& key, const std::string& value)>;

const std::map<std::string, Setter, std::less<>>& setters() {
  static const std::map<std::string, Setter, std::less<>> table{
      {"ca_file", [](auto& o, auto& k, auto& v) { o.ca_file = readable_file(k, v); }},
      {"issuer_public_key", [](auto& o, auto& k, auto& v) { o.issuer_public_key = readable_file(k, v); }},
      {"acl_file", [](auto& o, auto& k, auto& v) { o.acl_file = readable_file(k, v); }},
      {"loopback_port", [](auto& o, auto& k, auto& v) { o.loopback_port = static_cast<int>(integer(k, v, 1, 65535)); }},
      {"revocation_file", [](auto& o, auto&, auto& v) { o.revocation_file = v; }},
      {"token_audience", [](auto& o, auto& k, auto& v) {
         if (v.empty()) fail(k, "is empty", "write the aud your agent tokens carry (fleetctl's default: fleetmcp)");
         o.token_audience = v;
       }},
      {"schemas_dir", [](auto& o, auto& k, auto& v) {
         readable_file(k, v + "/index.json");
         o.schemas_dir = v;
       }},
      {"state_file", [](auto& o, auto&, auto& v) { o.state_file = v; }},
      {"enrolled_certs_dir", [](auto& o, auto& k, auto& v) { o.enrolled_certs_dir = readable_directory(k, v); }},
      {"audit_log", [](auto& o, auto&, auto& v) { o.audit_log = v; }},
      {"audit_refusal_interval_ms", [](auto& o, auto& k, auto& v) {
         o.audit_refusal_interval_ms = integer(k, v, 0, 3'600'000);
       }},
      {"waker_username", [](auto& o, auto& k, auto& v) {
         if (v.empty() || v.size() > 64) fail(k, "must be 1 to 64 characters", "pick a name no agent uses");
         o.waker_username = v;
       }},
      {"control_api", [](auto& o, auto& k, auto& v) { o.control_api = boolean(k, v); }},
      {"verdict_cache_entries", [](auto& o, auto& k, auto& v) {
         o.verdict_cache_entries = static_cast<size_t>(integer(k, v, 16, 10'000'000));
       }},
      {"broker_config_check", [](auto& o, auto& k, auto& v) { o.broker_config_check = boolean(k, v); }},
  };
  return table;
}

void require(const std::string& key, bool present) {
  if (!present) fail(key, "is required", "add a plugin_opt_" + key + " line after the plugin line in mosquitto.conf");
}

}  // namespace

PluginOptions parse_plugin_options(const OptionList& options) {
  PluginOptions parsed;
  std::set<std::string, std::less<>> seen;
  for (const auto& [key, value] : options) {
    if (is_http_option(key)) continue;
    const auto setter = setters().find(key);
    if (setter == setters().end()) {
      fail(key, "unknown option", "see docs/plugin.md for the options fleetmcp_plugin.so understands");
    }
    if (!seen.insert(key).second) fail(key, "given twice", "keep one plugin_opt_" + key + " line");
    setter->second(parsed, key, value);
  }
  require("ca_file", seen.count("ca_file"));
  require("issuer_public_key", seen.count("issuer_public_key"));
  require("acl_file", seen.count("acl_file"));
  require("loopback_port", seen.count("loopback_port"));
  return parsed;
}

}  // namespace fleetmcp::plugin
