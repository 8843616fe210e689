// fleetmcp_plugin.so: the three entry points mosquitto 2.0.11 looks up (plugin API v5), the only
// symbols the module exports. Configure it in mosquitto.conf (docs/plugin.md):
//
//   per_listener_settings false
//   check_retain_source true
//   set_tcp_nodelay true
//   max_packet_size 266240                       (advised: a warning without it)
//   plugin /usr/lib/fleetmcp/fleetmcp_plugin.so
//   plugin_opt_ca_file /etc/fleetmcp/pki/ca.crt
//   plugin_opt_issuer_public_key /etc/fleetmcp/pki/issuer.pub
//   plugin_opt_acl_file /usr/share/fleetmcp/acl/fleetmcp.acl
//   plugin_opt_loopback_port 1884
//   plugin_opt_http_listen 127.0.0.1:8080
//
// Init validates everything before registering a callback: a wrong option refuses to start the
// broker (a non-zero return aborts startup) with a log line naming the option, rather than
// running an open broker.
#include <mosquitto_broker.h>
#include <mosquitto_plugin.h>
#include <mosquitto.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "broker_plugin/module/broker_callbacks.h"
#include "broker_plugin/module/broker_config_check.h"
#include "broker_plugin/http/base/front_options.h"
#include "common/crypto/ed25519.h"
#include "common/base/file_text.h"
#include "common/ids/ulid.h"

#define FLEETMCP_EXPORT extern "C" __attribute__((visibility("default")))

namespace fleetmcp::plugin {
namespace {

OptionList option_list(const struct mosquitto_opt* opts, int count) {
  OptionList list;
  for (int i = 0; i < count; ++i) {
    list.emplace_back(opts[i].key != nullptr ? opts[i].key : "", opts[i].value != nullptr ? opts[i].value : "");
  }
  return list;
}

struct BrokerConfig {
  std::string path, text;
};

// The configuration file on our command line, with its include_dir; nullopt when unreadable.
std::optional<BrokerConfig> read_own_broker_config() {
  const auto path = config_path_from_cmdline(try_read_file("/proc/self/cmdline").value_or(""));
  auto text = path ? read_broker_config(*path) : std::nullopt;
  if (!text) return std::nullopt;
  return BrokerConfig{*path, std::move(*text)};
}

// docs/protocol.md §6's required broker settings (refused when wrong) and the advised ones (warned
// about).
void check_broker_settings(const std::optional<BrokerConfig>& config) {
  if (!config) {
    mosquitto_log_printf(MOSQ_LOG_WARNING,
                         "fleetmcp: cannot read the broker configuration to check per_listener_settings false, "
                         "check_retain_source true and set_tcp_nodelay true; make sure they are set");
    return;
  }
  for (const auto& w : broker_config_warnings(config->text)) {
    mosquitto_log_printf(MOSQ_LOG_WARNING, "fleetmcp: mosquitto.conf (%s): %s", config->path.c_str(), w.message.c_str());
  }
  const auto problems = check_broker_config_text(config->text);
  if (problems.empty()) return;
  std::string message = "mosquitto.conf (" + config->path + "): ";
  for (const auto& p : problems) message += p.message + ". ";
  throw Error(ErrorCode::kBadRequest, message, "set it, or plugin_opt_broker_config_check false to skip this check");
}

// The HTTP front shares the core's token issuer, audience and audit log unless its own
// plugin_opt_http_* lines say otherwise. Its threads never call mosquitto_* (docs/platform-notes.md §M3):
// its own log lines go straight to stderr. The listen address is bound here, before any callback
// is registered, so a busy port refuses to start the broker cleanly.
void create_http_front(PluginInstance& instance, const OptionSet& given, http::FrontOptions options) {
  FleetPlugin& core = *instance.core;
  const FleetPlugin::Parts parts = core.parts();
  if (!given.has("http_token_audience")) options.token_audience = parts.options.token_audience;
  // The core's key (loaded once, by the core), or the front's own: a missing or bad one stops the
  // plugin loading (value() throws to plugin_init).
  const Ed25519PublicKey issuer =
      options.issuer_public_key.empty()
          ? parts.issuer
          : ed25519_public_key_from_pem(read_file(options.issuer_public_key).value(), options.issuer_public_key).value();
  http::CallAudit audit = given.has("http_audit_log")
                              ? http::CallAudit::to_file(options.audit_log)
                              : http::CallAudit([&log = parts.audit](std::string_view line) { log.write_line(line); });
  instance.view = std::make_unique<http::PluginFleetView>(core, parts.schemas);
  instance.view->on_tick(now_ms(), true);
  core.set_observer(instance.view.get());
  instance.front = std::make_unique<http::HttpFront>(
      options, *instance.view, parts.schemas, issuer, std::move(audit),
      [](std::string_view line) { std::fprintf(stderr, "fleetmcp-http: %.*s\n", static_cast<int>(line.size()), line.data()); });
  // Agents on MQTT sign in with the identity providers' tokens the front trusts: the front's
  // verifier and keys (docs/architecture.md), cleared in cleanup before the front goes.
  core.set_issuer_tokens([&auth = instance.front->handler().bearer_auth()](std::string_view token, int64_t now_s) {
    return auth.issuer_token(token, now_s);
  });
  mosquitto_log_printf(MOSQ_LOG_NOTICE, "fleetmcp: MCP endpoint %s (HTTP front on port %u)",
                       instance.front->resource_url().c_str(), static_cast<unsigned>(instance.front->port()));
}

int start(mosquitto_plugin_id_t* id, void** userdata, const struct mosquitto_opt* opts, int count) {
  auto instance = std::make_unique<PluginInstance>();
  instance->id = id;
  const std::optional<BrokerConfig> config = read_own_broker_config();
  // Each option with its line in mosquitto.conf, so a refusal names it (docs/plugin.md).
  const OptionSet given = config ? plugin_option_set_at(option_list(opts, count), plugin_opt_lines(config->path), config->path)
                                 : plugin_option_set(option_list(opts, count));
  // Refuse bad options before anything runs; value() throws the envelope to mosquitto_plugin_init.
  PluginOptions options = parse_plugin_options(given).value();
  http::FrontOptions front_options = http::parse_front_options(given).value();
  if (options.broker_config_check) check_broker_settings(config);
  // How long mosquitto may keep a session after its client left (ClientIdClaims).
  if (config) options.persistent_client_expiration_ms = persistent_client_expiration_s(config->text).value_or(0) * 1000;
  const int port = options.loopback_port;
  instance->core = std::make_unique<FleetPlugin>(std::move(options), instance->port, [] { return now_ms(); });
  instance->waker = std::make_unique<LoopbackWaker>(*instance->core, port);
  instance->core->set_waker(instance->waker.get());
  if (front_options.enabled) create_http_front(*instance, given, std::move(front_options));
  if (const int rc = register_callbacks(*instance)) return rc;
  instance->waker->start();
  if (instance->front) instance->front->start();
  mosquitto_log_printf(MOSQ_LOG_NOTICE, "fleetmcp: plugin ready (loopback waker on 127.0.0.1:%d)", port);
  *userdata = instance.release();
  return MOSQ_ERR_SUCCESS;
}

}  // namespace
}  // namespace fleetmcp::plugin

FLEETMCP_EXPORT int mosquitto_plugin_version(int supported_version_count, const int* supported_versions) {
  for (int i = 0; i < supported_version_count; ++i) {
    if (supported_versions[i] == 5) return 5;
  }
  return -1;
}

FLEETMCP_EXPORT int mosquitto_plugin_init(mosquitto_plugin_id_t* identifier, void** userdata,
                                          struct mosquitto_opt* opts, int opt_count) {
  try {
    return fleetmcp::plugin::start(identifier, userdata, opts, opt_count);
  } catch (const fleetmcp::Error& e) {
    mosquitto_log_printf(MOSQ_LOG_ERR, "fleetmcp: refusing to start: %s (%s)", e.envelope().message.c_str(),
                         e.envelope().suggested_fix.c_str());
  } catch (const std::exception& e) {
    mosquitto_log_printf(MOSQ_LOG_ERR, "fleetmcp: refusing to start: %s", e.what());
  } catch (...) {
    mosquitto_log_printf(MOSQ_LOG_ERR, "fleetmcp: refusing to start: unknown error");
  }
  return MOSQ_ERR_INVAL;
}

FLEETMCP_EXPORT int mosquitto_plugin_cleanup(void* userdata, struct mosquitto_opt*, int) {
  auto* instance = static_cast<fleetmcp::plugin::PluginInstance*>(userdata);
  if (instance == nullptr) return MOSQ_ERR_SUCCESS;
  try {
    fleetmcp::plugin::unregister_callbacks(*instance);
    // The front first: its streams close and its threads join while the core still answers.
    if (instance->front) instance->front->stop();
    instance->core->set_observer(nullptr);
    instance->waker->stop();  // joined before dlclose() runs static destructors
    instance->core->shutdown();
    instance->core->set_issuer_tokens(nullptr);
    instance->front.reset();
    instance->view.reset();
  } catch (const std::exception& e) {
    mosquitto_log_printf(MOSQ_LOG_ERR, "fleetmcp: cleanup: %s", e.what());
  } catch (...) {
    mosquitto_log_printf(MOSQ_LOG_ERR, "fleetmcp: cleanup failed with an unknown exception");
  }
  delete instance;
  return MOSQ_ERR_SUCCESS;
}
