#include "broker_plugin/core/plugin_options.h"

namespace fleetmcp::plugin {
namespace {

Status non_empty(std::string& field, const Option& o, std::string_view fix) { return assign(field, o.text(fix)); }

// The keys of docs/plugin.md's table; files are checked for readability here, their contents
// are parsed by FleetPlugin, whose errors name the option too.
constexpr OptionRule<PluginOptions> kRules[] = {
    {"ca_file", [](PluginOptions& o, const Option& v) { return assign(o.ca_file, v.readable_file()); }},
    {"issuer_public_key", [](PluginOptions& o, const Option& v) { return assign(o.issuer_public_key, v.readable_file()); }},
    {"acl_file", [](PluginOptions& o, const Option& v) { return assign(o.acl_file, v.readable_file()); }},
    {"loopback_port", [](PluginOptions& o, const Option& v) { return assign(o.loopback_port, v.integer(1, 65535)); }},
    {"revocation_file", [](PluginOptions& o, const Option& v) { o.revocation_file = v.value; return Status(); }},
    {"token_audience", [](PluginOptions& o, const Option& v) {
       return non_empty(o.token_audience, v, "write the aud your agent tokens carry (fleetctl's default: fleetmcp)");
     }},
    {"schemas_dir", [](PluginOptions& o, const Option& v) {
       Option index = v;
       index.value += "/index.json";
       if (auto readable = index.readable_file(); !readable) return Status(std::move(readable).error());
       o.schemas_dir = v.value;
       return Status();
     }},
    {"state_file", [](PluginOptions& o, const Option& v) { o.state_file = v.value; return Status(); }},
    {"enrolled_certs_dir", [](PluginOptions& o, const Option& v) { return assign(o.enrolled_certs_dir, v.directory()); }},
    {"audit_log", [](PluginOptions& o, const Option& v) { o.audit_log = v.value; return Status(); }},
    {"audit_refusal_interval_ms", [](PluginOptions& o, const Option& v) {
       return assign(o.audit_refusal_interval_ms, v.integer(0, 3'600'000));
     }},
    {"max_persistent_sessions_per_principal", [](PluginOptions& o, const Option& v) {
       return assign(o.max_persistent_sessions_per_principal, v.integer(0, 100'000));
     }},
    {"waker_username", [](PluginOptions& o, const Option& v) {
       if (v.value.empty() || v.value.size() > 64) return Status(v.error("must be 1 to 64 characters", "pick a name no agent uses"));
       o.waker_username = v.value;
       return Status();
     }},
    {"control_api", [](PluginOptions& o, const Option& v) { return assign(o.control_api, v.boolean()); }},
    {"verdict_cache_entries", [](PluginOptions& o, const Option& v) {
       return assign(o.verdict_cache_entries, v.integer(16, 10'000'000));
     }},
    {"broker_config_check", [](PluginOptions& o, const Option& v) { return assign(o.broker_config_check, v.boolean()); }},
};

}  // namespace

Result<PluginOptions> parse_plugin_options(const OptionSet& options) {
  PluginOptions parsed;
  if (Status read = options.read<PluginOptions>(
          kRules, parsed, "see docs/plugin.md for the options fleetmcp_plugin.so understands", is_http_option);
      !read) {
    return std::move(read).error();
  }
  for (std::string_view key : {"ca_file", "issuer_public_key", "acl_file", "loopback_port"}) {
    const std::string fix = "add a plugin_opt_" + std::string(key) + " line after the plugin line in mosquitto.conf";
    if (Status given = options.require(key, fix); !given) return std::move(given).error();
  }
  return parsed;
}

}  // namespace fleetmcp::plugin
