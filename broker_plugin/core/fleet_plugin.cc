#include "broker_plugin/core/fleet_plugin.h"

#include "common/base/file_text.h"

namespace fleetmcp::plugin {
namespace {

// Every file an option names is loaded here; its error is re-labelled with the option, so the
// broker's log says which line of mosquitto.conf to fix.
template <typename Load>
auto for_option(std::string_view option, Load&& load) {
  try {
    return load();
  } catch (const Error& e) {
    throw Error(e.code(), "plugin_opt_" + std::string(option) + ": " + e.envelope().message,
                e.envelope().suggested_fix);
  }
}

std::shared_ptr<const SchemaRegistry> load_schemas(const PluginOptions& o) {
  return for_option("schemas_dir", [&] {
    return SchemaRegistry::load(o.schemas_dir.empty() ? SchemaRegistry::default_dir() : o.schemas_dir);
  });
}

std::shared_ptr<const RevocationList> load_revocations(const PluginOptions& o) {
  if (o.revocation_file.empty()) return std::make_shared<const RevocationList>();
  return for_option("revocation_file", [&] {
    return std::make_shared<const RevocationList>(RevocationList::load(o.revocation_file, /*missing_is_empty=*/false).value());
  });
}

Certificate load_ca(const PluginOptions& o) {
  return for_option("ca_file", [&] { return Certificate::load_pem_file(o.ca_file).value(); });
}

ClientIdentity make_identity(const PluginOptions& o, std::shared_ptr<const RevocationList> revoked) {
  const Ed25519PublicKey issuer = for_option("issuer_public_key", [&] {
    return ed25519_public_key_from_pem(read_file(o.issuer_public_key).value(), o.issuer_public_key).value();
  });
  return ClientIdentity(load_ca(o), issuer, o.token_audience, WakerCredentials::generate(o.waker_username),
                        std::move(revoked));
}

}  // namespace

FleetPlugin::FleetPlugin(PluginOptions options, BrokerPort& broker, Clock clock)
    : options_(std::move(options)),
      broker_(broker),
      clock_(std::move(clock)),
      schemas_(load_schemas(options_)),
      revoked_(load_revocations(options_)),
      identity_(make_identity(options_, revoked_)),
      acl_(for_option("acl_file", [&] { return TopicAcl::load(options_.acl_file); })),
      announces_(schemas_, identity_.ca(), revoked_, options_.verdict_cache_entries),
      claims_(options_.persistent_client_expiration_ms),
      audit_(for_option("audit_log", [&] { return std::make_unique<AuditLog>(options_.audit_log); })),
      refusal_lines_(options_.audit_refusal_interval_ms) {
  for_option("state_file", [&] {
    load_state();
    return 0;
  });
}

FleetPlugin::~FleetPlugin() = default;

std::optional<std::string_view> FleetPlugin::tenant_of(std::string_view node_id) const {
  const NodeRecord* node = registry_.find(node_id);
  if (node == nullptr || node->tenant.empty()) return std::nullopt;
  return std::string_view(node->tenant);
}

bool FleetPlugin::manifest_fresh(std::string_view node_id) const {
  const NodeRecord* node = registry_.find(node_id);
  return node != nullptr && !node->revoked && node->manifest_fresh(clock_());
}

void FleetPlugin::set_waker(Waker* waker) {
  waker_ = waker;
  calls_.set_wake([this] {
    if (waker_ != nullptr) waker_->wake();
  });
}

void FleetPlugin::submit_call(CallRequest request, CallDone done) {
  bump(counters_.calls_submitted);
  calls_.submit(QueuedCall{std::move(request), std::move(done)}, clock_());
}

void FleetPlugin::accept_scanned(std::string topic, std::string payload) {
  std::lock_guard<std::mutex> lock(scanned_mutex_);
  scanned_.emplace_back(std::move(topic), std::move(payload));
}

void FleetPlugin::audit(const AuditRecord& record, bool caller_verified) {
  const int64_t now = clock_();
  const bool refusal = record.decision == "drop" || record.decision == "deny" || record.decision == "refuse";
  if (!refusal) {
    audit_->write(record, now);
    return;
  }
  std::string key;
  key.reserve(96);
  for (std::string_view part : {record.decision, record.code, record.tenant}) key.append(part).push_back('\n');
  if (caller_verified) key.append(record.caller);
  const auto unwritten = refusal_lines_.admit(key, now);
  if (!unwritten) {
    bump(counters_.audit_lines_throttled);
    return;
  }
  if (*unwritten == 0) {
    audit_->write(record, now);
    return;
  }
  const std::string reason = std::string(record.reason) + (record.reason.empty() ? "" : "; ") +
                             std::to_string(*unwritten) + " more like this since the previous line";
  AuditRecord counted = record;
  counted.reason = reason;
  audit_->write(counted, now);
}

void FleetPlugin::shutdown() { save_state_if_due(clock_(), true); }

}  // namespace fleetmcp::plugin
