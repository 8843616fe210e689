// Who a connected client is, once client_identity has accepted it (docs/protocol.md §2).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/crypto/x509.h"

namespace fleetmcp::plugin {

enum class PrincipalKind : uint8_t {
  kNode,    // TLS client certificate CN=<node_id>, O=<tenant>
  kAgent,   // MQTT username = token sub, password = EdDSA agent token
  kPlugin,  // the plugin's own loopback waker
  kBridge,  // another broker's bridge: username = token sub, password = a fleet:bridge token
};
inline constexpr size_t kPrincipalKinds = 4;
std::string_view principal_kind_name(PrincipalKind kind);  // "node", "agent", "plugin", "bridge"
std::optional<PrincipalKind> principal_kind_from_name(std::string_view name);

// Token scopes as bits, so a policy check is one AND on the delivery path.
enum ScopeBit : uint32_t {
  kScopeBitDevicesRead = 1u << 0,
  kScopeBitCallReadOnly = 1u << 1,
  kScopeBitCallReversible = 1u << 2,
  kScopeBitCallPhysical = 1u << 3,
  kScopeBitFleetBridge = 1u << 4,
};
std::optional<uint32_t> scope_bit(std::string_view scope);

struct Principal {
  PrincipalKind kind = PrincipalKind::kAgent;
  std::string name;    // node_id, token sub, or the waker's username
  std::string tenant;  // empty for the plugin; a bridge's is its token's, and means nothing
  uint32_t scopes = 0;
  int64_t expires_at_s = 0;  // agent or bridge token exp; 0 = does not expire
  std::string jti;           // agent or bridge token id (revocable)
  std::shared_ptr<const Certificate> certificate;  // nodes: the certificate presented

  bool has_scopes(uint32_t required) const { return (scopes & required) == required; }
};

}  // namespace fleetmcp::plugin
