// An in-memory FleetView: a test double of the plugin core (node registry + call table), not of
// HTTP or the broker. Nodes and their capabilities are declared directly (no manifests), and
// each node behaves like fleetmcp-device's handlers: echo, metrics snapshot and subscribe (a
// telemetry lease that makes the node publish samples at the leased interval), and a test relay
// kind for physical actuation. Every callback runs on the `device` scheduler, which stands in for
// the broker thread; control methods may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/fleet/fleet_view_base.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::http::testing {

struct MemoryCapability {
  std::string cap_id, kind;
  std::vector<std::string> verbs;
  SafetyClass safety_class = SafetyClass::kReadOnly;
  CapabilityConstraints constraints;
  std::string label;  // the manifest's capability label (manifest@1.4.0); "" = none
};

class MemoryFleet : public FleetViewBase {
 public:
  MemoryFleet(std::shared_ptr<const SchemaRegistry> schemas, std::shared_ptr<Scheduler> device,
              std::function<int64_t()> wall_ms);
  ~MemoryFleet() override;

  // Control.
  void add_node(const std::string& tenant, const std::string& node_id, std::vector<MemoryCapability> caps,
                bool online = true);
  void remove_node(const std::string& node_id);
  // What its manifest says of the node (manifest@1.4.0): host name and operator labels.
  void describe(const std::string& node_id, std::string hostname, std::vector<std::string> labels);
  void set_online(const std::string& node_id, bool online);  // offline fails its calls, ends telemetry
  void expire(const std::string& node_id);                   // the manifest expired: tools vanish
  // Accepts calls and answers none: they fail at the gateway deadline (or going offline).
  void set_silent(const std::string& node_id, bool silent);
  void revoke_token(const std::string& jti);
  // {"nodes":[{"tenant","node_id","online"?,"capabilities":[{"cap_id","kind","verbs",
  //   "safety_class"?,"constraints"?}]}]} — throws Error(kBadRequest) when malformed.
  void load_json(std::string_view text);

  // What the devices saw.
  size_t calls_received() const { return calls_received_.load(); }
  int64_t leased_interval_ms(const std::string& node_id) const;
  size_t lease_calls() const { return lease_calls_.load(); }
  size_t watchers(const std::string& node_id) const { return watcher_count(node_id); }
  // How often token_revoked() was asked: once per bearer token the front checks (bearer_auth.h).
  size_t revocation_checks() const { return revocation_checks_.load(); }

  // FleetView (snapshot, its listener and telemetry watches: FleetViewBase). snapshot() is
  // counted: a tools/call resolves its tool once, in one snapshot.
  std::shared_ptr<const FleetSnapshot> snapshot() const override;
  size_t snapshots_taken() const { return snapshots_taken_.load(); }
  void call(CallRequest request, CallDone done) override;
  FleetStats stats() const override;
  bool token_revoked(std::string_view jti) const override;

  struct Node;  // memory_fleet.cc

 private:
  void publish_locked();
  void changed();
  void keep_unanswered(Node& node, std::string_view cap_id, CallDone done);
  CallResult run_tool(Node& node, const CallRequest& request, const json::Value& args);
  void start_telemetry(const std::string& node_id);
  void emit(const std::string& node_id, uint64_t generation);
  void notify_offline(const std::string& node_id);

  std::shared_ptr<const SchemaRegistry> schemas_;
  std::shared_ptr<Scheduler> device_;
  std::function<int64_t()> wall_ms_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Node>> nodes_;
  uint64_t generation_ = 0;
  std::set<std::string, std::less<>> revoked_;
  std::atomic<size_t> calls_received_{0}, lease_calls_{0};
  mutable std::atomic<size_t> revocation_checks_{0}, snapshots_taken_{0};
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace fleetmcp::http::testing
