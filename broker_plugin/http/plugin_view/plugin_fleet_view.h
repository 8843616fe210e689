// The production FleetView: the HTTP front's view of the plugin core (FleetPlugin: node registry,
// call table, counters). The core is broker-thread-only, so:
//   - the snapshot is rebuilt ON THE BROKER THREAD (on_tick) from the registry and swapped in;
//     HTTP threads only ever read the immutable snapshot;
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
#include <string>
#include <vector>

#include "broker_plugin/fleet_plugin.h"
#include "broker_plugin/http/fleet_view.h"

namespace fleetmcp::http {

class PluginFleetView : public FleetView, public plugin::FleetObserver {
 public:
  PluginFleetView(plugin::FleetPlugin& core, std::shared_ptr<const SchemaRegistry> schemas);

  // Broker thread. At most every kRebuildIntervalMs (always when `force`) it hashes what a
  // snapshot would show and, if that moved (or `force`), rebuilds, publishes and tells the front.
  // A rebuild blocks the broker loop (≈0.1 s at 10,000 nodes), so after a slow one the next waits
  // kRebuildCostFactor times as long: a fleet that keeps changing (a connect storm) cannot hold
  // the broker thread more than about a quarter of the time.
  void on_tick(int64_t now_ms, bool force = false);
  void on_telemetry(std::string_view node_id, std::string_view payload);
  void on_node_offline(std::string_view node_id);
  // Any thread: a new revocation list (plugin_opt_revocation_file, reloaded on SIGHUP).
  void set_revocations(std::shared_ptr<const RevocationList> revoked);

  // plugin::FleetObserver: the same entry points, called by the core.
  void fleet_ticked(int64_t now_ms) override { on_tick(now_ms); }
  void telemetry_arrived(std::string_view node_id, std::string_view payload) override { on_telemetry(node_id, payload); }
  void node_went_offline(std::string_view node_id) override { on_node_offline(node_id); }
  void revocations_reloaded(std::shared_ptr<const RevocationList> revoked) override { set_revocations(std::move(revoked)); }

  // FleetView.
  std::shared_ptr<const FleetSnapshot> snapshot() const override;
  void set_change_listener(std::function<void()> on_change) override;
  void call(CallSpec spec, CallDone done) override;
  std::unique_ptr<TelemetryWatch> watch_telemetry(std::string_view node_id, TelemetryHandler handler) override;
  FleetStats stats() const override;
  bool token_revoked(std::string_view jti) const override;

  static constexpr int64_t kRebuildIntervalMs = 250;
  static constexpr int64_t kRebuildCostFactor = 3;

 private:
  std::vector<FleetNode> build(int64_t now_ms) const;
  std::vector<std::shared_ptr<TelemetryHandler>> handlers_of(std::string_view node_id) const;

  plugin::FleetPlugin& core_;
  std::shared_ptr<const SchemaRegistry> schemas_;
  int64_t last_build_ms_ = 0;
  int64_t last_build_cost_ms_ = 0;  // steady-clock duration of the last rebuild
  uint64_t last_fingerprint_ = 0;  // broker thread only

  mutable std::mutex mutex_;  // guards everything below
  std::shared_ptr<const FleetSnapshot> snapshot_;
  uint64_t generation_ = 0;
  std::function<void()> listener_;
  std::shared_ptr<const RevocationList> revoked_;
  struct Watcher {
    uint64_t id;
    std::shared_ptr<TelemetryHandler> handler;
  };
  std::map<std::string, std::vector<Watcher>, std::less<>> watchers_;
  uint64_t next_watch_ = 1;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace fleetmcp::http
