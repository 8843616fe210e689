// What everyone is told after each change of a node's session, manifest or revocation: the
// retained $devices/<id>/status (schemas/status@1.0.0.json, docs/protocol.md §3; only the plugin
// writes it, docs/protocol.md D6) and the core's observer (node_changed). A node that stops being
// reachable is told to `unreachable` first (FleetPlugin fails its calls there), then to the
// observer (node_went_offline). Broker thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "broker_plugin/announces/node_registry.h"
#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/fleet_observer.h"

namespace fleetmcp::plugin {

// {"node_id","state","since_ms"[,"manifest_etag","expires_at_ms"]}: the etag and expiry of the
// last accepted manifest, absent when none was accepted.
std::string status_message(const NodeRecord& node, NodeState state, int64_t since_ms);

class NodeStatus {
 public:
  NodeStatus(BrokerPort& broker, const PluginClock& clock) : broker_(broker), clock_(clock) {}

  // Wired before the broker loop runs.
  void set_observer(FleetObserver* observer) { observer_ = observer; }
  void set_unreachable(std::function<void(std::string_view node_id)> unreachable) {
    unreachable_ = std::move(unreachable);
  }

  // After every change of a node: the observer hears of it, and its status is republished when
  // its state or etag changed (never a remote node's: its own plugin publishes that).
  void refresh(NodeRecord& node);
  // Only the observer (a change that publishes no status of its own).
  void changed(std::string_view node_id) {
    if (observer_ != nullptr) observer_->node_changed(node_id);
  }
  // `fail_calls`: the node's session or bridge is gone, so its pending calls cannot be answered.
  void went_offline(std::string_view node_id, bool fail_calls);

 private:
  BrokerPort& broker_;
  const PluginClock& clock_;
  FleetObserver* observer_ = nullptr;
  std::function<void(std::string_view node_id)> unreachable_;
};

}  // namespace fleetmcp::plugin
