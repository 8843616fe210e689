// An external OAuth 2.1 authorization server whose JWT access tokens the front accepts
// (docs/authorization.md): its issuer URL, the audience its tokens must name, and how its claims map
// onto what the plugin knows (subject, tenant, the four scopes of docs/protocol.md §2).
//
// mosquitto.conf, one group of lines per issuer, <name> any word of the operator's choosing:
//   plugin_opt_http_oauth.<name>.issuer = https://idp.example/realms/fleet
//   plugin_opt_http_oauth.<name>.tenant = acme            (or tenant_claim = <claim>)
//   plugin_opt_http_oauth.<name>.scopes = fleet.read=devices:read fleet.call=tools:call:read_only
// and optionally audience, subject_claim, scope_claim, key_lifetime_s, min_refresh_s.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/base/options.h"

namespace fleetmcp::http {

struct TrustedIssuer {
  std::string name;          // the <name> of its options, for messages and the audit log
  std::string issuer;        // the exact "iss" of its tokens and of its metadata
  std::string audience;      // "" = the MCP resource URL (RFC 8707)
  std::string tenant;        // a fixed tenant for every token of this issuer, or
  std::string tenant_claim;  // the claim that names the tenant
  std::string subject_claim = "sub";
  std::string scope_claim = "scope";  // a space-separated string or an array of strings
  // Their scope name -> ours. Empty: tokens carry our names themselves.
  std::vector<std::pair<std::string, std::string>> scopes;
  int64_t key_lifetime_s = 3600;  // fetched keys are used this long after the last successful fetch
  int64_t min_refresh_s = 30;     // at most one fetch in this interval (an unknown kid asks for one)

  // Their name for one of our scopes (the first mapped), or ours when nothing maps to it.
  std::string their_scope(std::string_view ours) const;
};

// True for the keys parse_trusted_issuers reads ("http_oauth.<name>.<field>").
bool is_trusted_issuer_option(std::string_view key);

// Every issuer the options configure, in the order their first line appears. kBadRequest naming
// the option and where it was written: an unknown field, a missing issuer, both or neither of
// tenant and tenant_claim, a scope mapped to a name that is not one of the four.
Result<std::vector<TrustedIssuer>> parse_trusted_issuers(const OptionSet& options);

}  // namespace fleetmcp::http
