#include "broker_plugin/http/auth/trusted_issuer.h"

#include <algorithm>

#include "broker_plugin/http/auth/http_get.h"
#include "common/crypto/agent_token.h"
#include "common/ids/tenant.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kPrefix = "http_oauth.";
constexpr std::string_view kOurScopes[] = {kScopeDevicesRead, kScopeCallReadOnly, kScopeCallReversible,
                                           kScopeCallPhysical};

using Rule = OptionRule<TrustedIssuer>;

template <std::string TrustedIssuer::*field>
Status text(TrustedIssuer& o, const Option& v) {
  return assign(o.*field, v.text("write a value or leave the line out"));
}

template <int64_t TrustedIssuer::*field, int64_t min, int64_t max>
Status seconds(TrustedIssuer& o, const Option& v) {
  return assign(o.*field, v.integer(min, max));
}

// https, or http on a loopback address (a test's or a local identity provider).
Status issuer_url(TrustedIssuer& o, const Option& v) {
  if (!acceptable_issuer_url(v.value)) {
    return v.error("must be an https:// URL", "write the issuer exactly as its tokens' iss claim has it");
  }
  o.issuer = v.value;
  return {};
}

Status tenant(TrustedIssuer& o, const Option& v) {
  if (!is_tenant_name(v.value)) return v.error("'" + v.value + "' is not a tenant name", "see docs/protocol.md §2");
  o.tenant = v.value;
  return {};
}

// "theirs=ours …"; ours is one of the four scopes (never fleet:bridge).
Status scope_map(TrustedIssuer& o, const Option& v) {
  for (const std::string& pair : v.words()) {
    const size_t eq = pair.find('=');
    const std::string ours = eq == std::string::npos ? "" : pair.substr(eq + 1);
    if (eq == 0 || std::find(std::begin(kOurScopes), std::end(kOurScopes), ours) == std::end(kOurScopes)) {
      return v.error("'" + pair + "' is not <their scope>=<our scope>",
                     "our scopes are devices:read, tools:call:read_only, tools:call:reversible and "
                     "tools:call:physical_actuation");
    }
    o.scopes.emplace_back(pair.substr(0, eq), ours);
  }
  return {};
}

constexpr Rule kRules[] = {
    {"issuer", issuer_url},
    {"audience", text<&TrustedIssuer::audience>},
    {"tenant", tenant},
    {"tenant_claim", text<&TrustedIssuer::tenant_claim>},
    {"subject_claim", text<&TrustedIssuer::subject_claim>},
    {"scope_claim", text<&TrustedIssuer::scope_claim>},
    {"scopes", scope_map},
    {"key_lifetime_s", seconds<&TrustedIssuer::key_lifetime_s, 10, 7 * 86400>},
    {"min_refresh_s", seconds<&TrustedIssuer::min_refresh_s, 1, 3600>},
};

// "http_oauth.corp.issuer" -> ("corp", "issuer").
std::pair<std::string, std::string> split_key(std::string_view key) {
  key.remove_prefix(kPrefix.size());
  const size_t dot = key.rfind('.');
  if (dot == std::string_view::npos) return {"", std::string(key)};
  return {std::string(key.substr(0, dot)), std::string(key.substr(dot + 1))};
}

}  // namespace

std::string TrustedIssuer::their_scope(std::string_view ours) const {
  for (const auto& [theirs, mapped] : scopes) {
    if (mapped == ours) return theirs;
  }
  return std::string(ours);
}

bool is_trusted_issuer_option(std::string_view key) { return key.starts_with(kPrefix); }

Result<std::vector<TrustedIssuer>> parse_trusted_issuers(const OptionSet& options) {
  // One OptionSet per issuer, keyed by the field, so OptionSet::read finds unknown and repeated
  // fields and names the line as the user wrote it.
  std::vector<std::pair<std::string, OptionSet>> groups;
  for (const Option& option : options.options()) {
    if (!is_trusted_issuer_option(option.key)) continue;
    auto [name, field] = split_key(option.key);
    if (name.empty()) return option.error("is not plugin_opt_http_oauth.<name>.<field>", "see docs/authorization.md");
    auto group = std::find_if(groups.begin(), groups.end(), [&name = name](const auto& g) { return g.first == name; });
    if (group == groups.end()) group = groups.insert(groups.end(), {name, OptionSet("", options.origin())});
    group->second.add_named(field, option.name, option.value, option.source);
  }
  std::vector<TrustedIssuer> issuers;
  for (const auto& [name, group] : groups) {
    TrustedIssuer issuer;
    issuer.name = name;
    if (Status read = group.read<TrustedIssuer>(kRules, issuer, "see docs/authorization.md for the fields"); !read) {
      return std::move(read).error();
    }
    const std::string base = "http_oauth." + name + ".";
    if (issuer.issuer.empty()) {
      return options.error(base + "issuer", "is required", "write the issuer URL its tokens carry as iss");
    }
    if (issuer.tenant.empty() == issuer.tenant_claim.empty()) {
      return options.error(base + "tenant", "give exactly one of tenant and tenant_claim",
                           "a fixed tenant for every token of this issuer, or the claim that names it");
    }
    const bool repeated = std::any_of(issuers.begin(), issuers.end(), [&](const auto& i) { return i.issuer == issuer.issuer; });
    if (repeated) return options.error(base + "issuer", "names an issuer another group names", "one group per issuer");
    issuers.push_back(std::move(issuer));
  }
  return issuers;
}

}  // namespace fleetmcp::http
