// The states of a node as the plugin publishes them in $devices/<id>/status (docs/protocol.md §3,
// schemas/status@1.0.0.json) and as the HTTP front shows them to agents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fleetmcp {

enum class NodeState : uint8_t { kOnline, kOffline, kExpired, kRevoked };
inline constexpr size_t kNodeStateCount = 4;

// The status message's "state": "online", "offline", "expired" or "revoked".
constexpr std::string_view node_state_name(NodeState state) {
  switch (state) {
    case NodeState::kOnline: return "online";
    case NodeState::kOffline: return "offline";
    case NodeState::kExpired: return "expired";
    case NodeState::kRevoked: return "revoked";
  }
  return "offline";
}

}  // namespace fleetmcp
