// What the plugin core tells whoever presents the fleet to agents (the HTTP front's FleetView):
// the loop turned, a node published telemetry, a node can no longer answer, the revocation list
// changed. Every call comes from the broker thread and must return quickly without calling back
// into the core; an observer that needs another thread hands the work over itself.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "common/crypto/x509.h"

namespace fleetmcp::plugin {

class FleetObserver {
 public:
  virtual ~FleetObserver() = default;

  // At the end of every MOSQ_EVT_TICK, after calls, expiries and revocations were applied.
  virtual void fleet_ticked(int64_t now_ms) = 0;
  // A node published on its own $devices/<id>/telemetry.
  virtual void telemetry_arrived(std::string_view node_id, std::string_view payload) = 0;
  // The node's session ended, or it was revoked, deregistered or its manifest expired.
  virtual void node_went_offline(std::string_view node_id) = 0;
  // Something an agent could see of the node may have changed: it connected or left, a manifest
  // was accepted, expired, deregistered or cleared, it was revoked, or a bridge brought its
  // liveness. Said at least once per change, possibly for nothing; a view rebuilds what this
  // names instead of scanning the registry.
  virtual void node_changed(std::string_view node_id) = 0;
  virtual void revocations_reloaded(std::shared_ptr<const RevocationList> revoked) = 0;
};

}  // namespace fleetmcp::plugin
