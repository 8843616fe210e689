// What every FleetView implements the same way (the production PluginFleetView and the tests'
// MemoryFleet): the snapshot readers get and the listener told when it changes, and who watches
// which node's telemetry. An implementation builds its snapshots and publishes them here, and hands
// each sample or session end to the handlers of watchers_of(). The threading contract is
// fleet_view.h's: everything here may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/http/fleet/fleet_view.h"

namespace fleetmcp::http {

class FleetViewBase : public FleetView {
 public:
  std::shared_ptr<const FleetSnapshot> snapshot() const override;
  void set_change_listener(std::function<void()> on_change) override;
  std::unique_ptr<TelemetryWatch> watch_telemetry(std::string_view node_id, TelemetryHandler handler) override;

 protected:
  FleetViewBase();  // an empty fleet until the first publish
  ~FleetViewBase() override;

  // Swaps `next` in, then tells the listener (on this thread, with no lock of this class held).
  void publish(std::shared_ptr<const FleetSnapshot> next);
  // The two halves of publish(), for an implementation that builds and swaps its snapshots under
  // a lock of its own (so that they are swapped in the order they were built) and must not run
  // the listener under it.
  void set_snapshot(std::shared_ptr<const FleetSnapshot> next);
  void notify_listener() const;

  // The handlers watching `node_id` now; call them outside any lock.
  std::vector<std::shared_ptr<TelemetryHandler>> watchers_of(std::string_view node_id) const;
  size_t watcher_count(std::string_view node_id) const;

 private:
  struct Watcher {
    uint64_t id;
    std::shared_ptr<TelemetryHandler> handler;
  };

  mutable std::mutex mutex_;  // guards everything below
  std::shared_ptr<const FleetSnapshot> snapshot_;
  std::function<void()> listener_;
  std::map<std::string, std::vector<Watcher>, std::less<>> watchers_;
  uint64_t next_watch_ = 1;
  // A TelemetryWatch may outlive the view: it removes itself only while this lives.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace fleetmcp::http
