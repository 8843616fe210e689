// One device telemetry stream fanned out to every subscriber, each at its own interval (docs/protocol.md
// §4). Per (node, capability) there is one feed: one TelemetryWatch on the node, and one lease
// asking the device for samples at the shortest interval any subscriber wants, renewed while
// anyone listens. A subscriber gets a sample when its own interval has (nearly) elapsed since its
// last one. When the node goes offline or refuses the lease, every subscriber hears why.
//
// Lease calls, renewals and feed teardown run on the fan-out's own scheduler; samples arrive on
// the broker's thread and go to subscribers, which must hop to their own scheduler.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::http {

class TelemetrySubscriber {
 public:
  virtual ~TelemetrySubscriber() = default;
  // Any thread; must not block.
  virtual void on_sample(std::shared_ptr<const json::Document> sample) = 0;
  // The feed ended: E_NODE_OFFLINE, or the lease call's error. Any thread, at most once.
  virtual void on_feed_end(const ErrorEnvelope& why) = 0;
};

class TelemetrySubscription {
 public:
  virtual ~TelemetrySubscription() = default;  // unsubscribes
  // The device's last granted lease end (Unix ms), 0 before the first grant.
  virtual int64_t lease_expires_at_ms() const = 0;
  virtual int64_t leased_interval_ms() const = 0;
};

class TelemetryFanout {
 public:
  using Clock = std::function<int64_t()>;  // monotonic milliseconds

  TelemetryFanout(FleetView& fleet, const SchemaRegistry& schemas, std::shared_ptr<Scheduler> scheduler,
                  std::chrono::milliseconds renew_every, Clock clock);
  ~TelemetryFanout();

  // `tool` is a metrics subscribe tool (is_metrics_stream) of `tenant`.
  std::unique_ptr<TelemetrySubscription> subscribe(const FleetTool& tool, const std::string& tenant,
                                                   int64_t interval_ms, std::weak_ptr<TelemetrySubscriber> who);

  size_t feed_count() const;
  size_t subscriber_count() const;

  struct Feed;   // one per (node, capability), telemetry_fanout.cc
  struct State;  // shared with the feeds, so late callbacks never touch a destroyed fan-out

 private:
  std::shared_ptr<State> state_;
};

}  // namespace fleetmcp::http
