// The plugin's configuration: plugin_opt_<key> <value> lines after the `plugin` line in
// mosquitto.conf (docs/protocol.md §6). Validated before anything starts; a wrong value refuses to start
// the broker with an error that names the option (docs/plugin.md lists them all).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/base/options.h"

namespace fleetmcp::plugin {

struct PluginOptions {
  std::string ca_file;             // required: the fleet CA certificate (PEM)
  std::string issuer_public_key;   // required: the agent-token issuer's public key (PEM)
  std::string acl_file;            // required: the topic policy (acl/fleetmcp.acl)
  int loopback_port = 0;           // required: a plain listener bound to 127.0.0.1, for the waker
  std::string revocation_file;     // node_ids and token jtis; reloaded on SIGHUP
  std::string token_audience = "fleetmcp";
  std::string schemas_dir;         // default: SchemaRegistry::default_dir()
  std::string state_file;          // registry persistence across restarts (recommended)
  // Bridged fleets (docs/protocol.md §12): <dir>/<node_id>/node.crt, the enrolled certificates of nodes
  // connected to other brokers, whose announces arrive over a bridge (docs/sharding.md).
  std::string enrolled_certs_dir;
  std::string audit_log = "-";     // "-" = stderr
  // One drop/deny/refuse line per kind and interval (issue 24); 0 writes every one.
  int64_t audit_refusal_interval_ms = 1000;
  // Clean-start-false sessions one agent or bridge principal may leave to mosquitto (issue 33).
  size_t max_persistent_sessions_per_principal = 32;
  std::string waker_username = "fleetmcp-plugin";
  bool control_api = false;        // the $CONTROL/fleetmcp/v1 test driver (docs/plugin.md)
  size_t verdict_cache_entries = 65536;
  bool broker_config_check = true; // refuse to start when mosquitto.conf lacks a required setting
  // Not a plugin_opt_ line: mosquitto.conf's persistent_client_expiration (plugin_entry.cc reads
  // it), how long mosquitto may keep a session after its client left; 0 = unknown or unlimited.
  int64_t persistent_client_expiration_ms = 0;
};

// Option pairs as mosquitto hands them over (keys without "plugin_opt_").
using OptionList = std::vector<std::pair<std::string, std::string>>;

// The HTTP front's options (plugin_opt_http_*) are its own (broker_plugin/http/base/front_options.h):
// parse_plugin_options skips them.
inline bool is_http_option(std::string_view key) { return key.starts_with("http_"); }

// The pairs as one OptionSet (common/base/options.h) without positions: tests, and a broker whose
// -c file cannot be read. plugin_entry.cc gives each option its line with plugin_option_set_at
// (broker_config_check.h).
inline OptionSet plugin_option_set(const OptionList& pairs) { return OptionSet::from_pairs("plugin_opt_", pairs); }

// A kBadRequest "[<file>:<line>: ]plugin_opt_<key>: <what is wrong>" for an unknown, repeated,
// missing or malformed option. Files are checked for readability here; their contents are
// parsed by FleetPlugin, whose errors name the option too.
Result<PluginOptions> parse_plugin_options(const OptionSet& options);

}  // namespace fleetmcp::plugin
