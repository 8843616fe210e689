#include "broker_plugin/core/fleet_plugin.h"

#include "common/base/file_text.h"

namespace fleetmcp::plugin {
namespace {

// Every file an option names is loaded here, at start-up; its error is re-labelled with the
// option, so the broker's log says which line of mosquitto.conf to fix. The constructor then
// throws it (value()), caught where mosquitto loads the plugin (module/plugin_entry.cc).
ErrorEnvelope labelled(std::string_view option, const ErrorEnvelope& e) {
  return ErrorEnvelope(e.code, "plugin_opt_" + std::string(option) + ": " + e.message, e.suggested_fix);
}

template <typename T>
Result<T> for_option(std::string_view option, Result<T> loaded) {
  if (loaded) return loaded;
  return labelled(option, loaded.error());
}

// The same for the loaders that throw by contract (SchemaRegistry::load, the audit log's
// constructor; docs/CONTRIBUTING.md "Exceptions"): still start-up, so the label is all it adds.
template <typename Load>
auto for_option_throwing(std::string_view option, Load&& load) {
  try {
    return load();
  } catch (const Error& e) {
    throw Error(labelled(option, e.envelope()));
  }
}

std::shared_ptr<const SchemaRegistry> load_schemas(const PluginOptions& o) {
  return for_option_throwing("schemas_dir", [&] {
    return SchemaRegistry::load(o.schemas_dir.empty() ? SchemaRegistry::default_dir() : o.schemas_dir);
  });
}

std::shared_ptr<const RevocationList> load_revocations(const PluginOptions& o) {
  if (o.revocation_file.empty()) return std::make_shared<const RevocationList>();
  return std::make_shared<const RevocationList>(
      for_option("revocation_file", RevocationList::load(o.revocation_file, /*missing_is_empty=*/false)).value());
}

Certificate load_ca(const PluginOptions& o) { return for_option("ca_file", Certificate::load_pem_file(o.ca_file)).value(); }

Result<Ed25519PublicKey> load_issuer_key(const std::string& path) {
  auto pem = read_file(path);
  if (!pem) return std::move(pem).error();
  return ed25519_public_key_from_pem(*pem, path);
}

ClientIdentity make_identity(const PluginOptions& o, std::shared_ptr<const RevocationList> revoked) {
  const Ed25519PublicKey issuer = for_option("issuer_public_key", load_issuer_key(o.issuer_public_key)).value();
  return ClientIdentity(load_ca(o), issuer, o.token_audience, WakerCredentials::generate(o.waker_username),
                        std::move(revoked));
}

}  // namespace

FleetPlugin::FleetPlugin(PluginOptions options, BrokerPort& broker, PluginClock clock)
    : options_(std::move(options)),
      broker_(broker),
      clock_(std::move(clock)),
      schemas_(load_schemas(options_)),
      revoked_(load_revocations(options_)),
      admission_(make_identity(options_, revoked_), options_.persistent_client_expiration_ms,
                 options_.max_persistent_sessions_per_principal, broker_, clock_, audit_, counters_),
      acl_(for_option("acl_file", TopicAcl::load(options_.acl_file)).value()),
      announces_({.schemas = schemas_,
                  .ca = admission_.identity().ca(),
                  .revoked = revoked_,
                  .verdict_cache_entries = options_.verdict_cache_entries,
                  .enrolled_certs_dir = options_.enrolled_certs_dir},
                 broker_, clock_, audit_, counters_),
      audit_(for_option_throwing("audit_log", [&] {
        return AuditTrail(options_.audit_log, options_.audit_refusal_interval_ms, clock_, counters_);
      })),
      calls_(announces_.registry(), *schemas_, broker_, clock_, audit_, counters_),
      control_(calls_, announces_.registry(), *schemas_, counters_, broker_, clock_) {
  announces_.set_unreachable(
      [this](std::string_view node_id) { calls_.fail_calls_of(node_id, ErrorCode::kNodeOffline); });
  for_option("state_file", load_state()).value();
}

FleetPlugin::~FleetPlugin() = default;

void FleetPlugin::set_waker(Waker* waker) {
  waker_ = waker;
  calls_.set_wake([this] {
    if (waker_ != nullptr) waker_->wake();
  });
}

Verdict FleetPlugin::on_basic_auth(const ClientView& client, std::optional<std::string_view> password) {
  return admission_.basic_auth(client, password);
}

void FleetPlugin::submit_call(CallRequest request, CallDone done) {
  bump(counters_.calls_submitted);
  calls_.submit(QueuedCall{std::move(request), std::move(done)});
}

void FleetPlugin::accept_scanned(std::string topic, std::string payload) {
  std::lock_guard<std::mutex> lock(scanned_mutex_);
  scanned_.emplace_back(std::move(topic), std::move(payload));
}

// The $CONTROL test driver answers authenticated agents only.
void FleetPlugin::on_control(const ClientView& client, std::string_view payload) {
  const Session* session = admission_.find(client);
  if (session == nullptr || !session->principal || session->principal->kind != PrincipalKind::kAgent) return;
  const Principal agent = *session->principal;
  control_.on_request(client.id, agent, payload);
}

void FleetPlugin::shutdown() { save_state_if_due(clock_(), true); }

}  // namespace fleetmcp::plugin
