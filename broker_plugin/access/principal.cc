#include "broker_plugin/access/principal.h"

#include <array>
#include <utility>

#include "common/crypto/agent_token.h"

namespace fleetmcp::plugin {
namespace {

constexpr std::array<std::pair<PrincipalKind, std::string_view>, kPrincipalKinds> kKinds{{
    {PrincipalKind::kNode, "node"},
    {PrincipalKind::kAgent, "agent"},
    {PrincipalKind::kPlugin, "plugin"},
    {PrincipalKind::kBridge, "bridge"},
}};

constexpr std::array<std::pair<std::string_view, uint32_t>, 5> kScopes{{
    {kScopeDevicesRead, kScopeBitDevicesRead},
    {kScopeCallReadOnly, kScopeBitCallReadOnly},
    {kScopeCallReversible, kScopeBitCallReversible},
    {kScopeCallPhysical, kScopeBitCallPhysical},
    {kScopeFleetBridge, kScopeBitFleetBridge},
}};

}  // namespace

std::string_view principal_kind_name(PrincipalKind kind) {
  for (const auto& [k, name] : kKinds) {
    if (k == kind) return name;
  }
  return "agent";
}

std::optional<PrincipalKind> principal_kind_from_name(std::string_view name) {
  for (const auto& [k, n] : kKinds) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::optional<uint32_t> scope_bit(std::string_view scope) {
  for (const auto& [name, bit] : kScopes) {
    if (name == scope) return bit;
  }
  return std::nullopt;
}

}  // namespace fleetmcp::plugin
