// Tenant names: the O of a node certificate and the tenant claim of an agent token, checked by
// fleetctl when it issues them and by the plugin when a client presents them. They end up in
// audit lines and ACL conditions, so the grammar keeps them topic- and log-safe by construction.
#pragma once

#include <string_view>

namespace fleetmcp {

inline constexpr std::string_view kTenantPattern = "^[a-z0-9][a-z0-9_-]{0,62}$";
bool is_tenant_name(std::string_view text);  // kTenantPattern

}  // namespace fleetmcp
