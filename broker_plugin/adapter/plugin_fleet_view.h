// The production FleetView: the HTTP front's view of the plugin core (FleetPlugin: node registry,
// call table, counters). The core is broker-thread-only, so:
//   - the snapshot is updated ON THE BROKER THREAD (on_tick) and swapped in; HTTP threads only
//     ever read the immutable snapshot. The core names every node that changed (node_changed);
//     the next snapshot is the last one with just those nodes rebuilt from the registry
//     (FleetSnapshot::next): a change costs O(its tools × log N), not a rebuild of the fleet;
//   - calls go through FleetPlugin::submit_call (any thread: its queue, drained on the tick,
//     woken by the loopback waker); completions arrive on the broker thread;
//   - telemetry and session ends reach it from the broker thread (on_telemetry, on_node_offline).
// The core calls those broker-thread entry points as its FleetObserver (set_observer).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker_plugin/core/fleet_plugin.h"
#include "broker_plugin/http/fleet/fleet_view_base.h"

namespace fleetmcp::http {

class PluginFleetView : public FleetViewBase, public plugin::FleetObserver {
 public:
  PluginFleetView(plugin::FleetPlugin& core, std::shared_ptr<const SchemaRegistry> schemas);

  // Broker thread. When nodes changed, at most every kPublishIntervalMs, it makes the next
  // snapshot from the changed nodes, publishes it and tells the front (whose list_changed
  // notifications are batched the same way). `force` builds the whole fleet now: the first
  // snapshot, before the view is the core's observer.
  void on_tick(int64_t now_ms, bool force = false);
  void on_telemetry(std::string_view node_id, std::string_view payload);
  void on_node_offline(std::string_view node_id);
  // Any thread: a new revocation list (plugin_opt_revocation_file, reloaded on SIGHUP).
  void set_revocations(std::shared_ptr<const RevocationList> revoked);

  // plugin::FleetObserver: the same entry points, called by the core.
  void fleet_ticked(int64_t now_ms) override { on_tick(now_ms); }
  void telemetry_arrived(std::string_view node_id, std::string_view payload) override { on_telemetry(node_id, payload); }
  void node_went_offline(std::string_view node_id) override { on_node_offline(node_id); }
  void node_changed(std::string_view node_id) override { changed_.emplace(node_id); }
  void revocations_reloaded(std::shared_ptr<const RevocationList> revoked) override { set_revocations(std::move(revoked)); }

  // FleetView (snapshot, its listener and telemetry watches: FleetViewBase).
  void call(CallRequest request, CallDone done) override;
  FleetStats stats() const override;
  bool token_revoked(std::string_view jti) const override;

  static constexpr int64_t kPublishIntervalMs = 250;

 private:
  // What agents see of one registry entry; nullopt for a node with no tenant (not shown).
  std::optional<FleetNode> node_of(const plugin::NodeRecord& record, int64_t now_ms) const;
  std::shared_ptr<const FleetSnapshot> full_build(int64_t now_ms) const;
  // nullptr when the changed nodes show nothing new.
  std::shared_ptr<const FleetSnapshot> changed_build(int64_t now_ms);

  plugin::FleetPlugin& core_;
  std::shared_ptr<const SchemaRegistry> schemas_;
  // Broker thread only.
  int64_t last_publish_ms_ = 0;
  std::set<std::string, std::less<>> changed_;  // node_ids named by the core since the last snapshot

  mutable std::mutex mutex_;  // guards revoked_
  std::shared_ptr<const RevocationList> revoked_;
};

}  // namespace fleetmcp::http
