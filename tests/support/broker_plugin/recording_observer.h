// A FleetObserver double that records what the core tells the HTTP front's view.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/base/fleet_observer.h"

namespace fleetmcp::testing {

// What the HTTP front's view hears from the core (fleet_observer.h).
struct RecordingObserver : plugin::FleetObserver {
  void fleet_ticked(int64_t) override { ++ticks; }
  void telemetry_arrived(std::string_view node_id, std::string_view payload) override {
    telemetry.push_back(std::string(node_id) + " " + std::string(payload));
  }
  void node_went_offline(std::string_view node_id) override { offline.emplace_back(node_id); }
  void node_changed(std::string_view node_id) override { changed.emplace(node_id); }
  void revocations_reloaded(std::shared_ptr<const RevocationList>) override { ++reloads; }
  // Whether `node_id` was said to have changed since the last question.
  bool changed_since(const std::string& node_id) { return changed.erase(node_id) != 0; }
  int ticks = 0, reloads = 0;
  std::vector<std::string> telemetry, offline;
  std::set<std::string> changed;
};

}  // namespace fleetmcp::testing
