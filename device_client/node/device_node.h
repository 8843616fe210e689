// One node: its identity, tools, signed announce, MQTT session, command dispatcher and telemetry.
// A single device runs one; --simulate runs many in one process over shared timers, workers,
// schema registry and host metrics.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "common/registry/schema_registry.h"
#include "device_client/node/announce_signer.h"
#include "device_client/commands/command_dispatcher.h"
#include "device_client/config/device_config.h"
#include "device_client/commands/handler_catalogue.h"
#include "device_client/host/host_metrics.h"
#include "device_client/session/mqtt_session.h"
#include "device_client/node/node_identity.h"
#include "device_client/session/telemetry_cadence.h"
#include "device_client/session/timer_queue.h"
#include "device_client/commands/tool_table.h"
#include "device_client/session/worker_pool.h"

namespace fleetmcp::device {

// What every node of the process shares.
struct SharedRuntime {
  std::shared_ptr<const SchemaRegistry> schemas;
  const HandlerCatalogue* catalogue = nullptr;
  HostMetrics* host_metrics = nullptr;
  TimerQueue* timers = nullptr;
  WorkerPool* workers = nullptr;
  bool test_hooks = false;
  int64_t started_at_ms = 0;  // process start, for manage.server
};

// $devices/<id>/… (docs/protocol.md §3), built once from the node_id the config checked.
struct NodeTopics {
  explicit NodeTopics(const std::string& node_id);
  std::string announce, telemetry, cmd, cmd_ack, rejected, status;
};

class DeviceNode {
 public:
  // Loads and cross-checks the identity, builds the tools, signs a manifest once and validates it
  // (so a bad bundle fails here, naming its file). `simulated` picks the synthetic fingerprint.
  DeviceNode(DeviceConfig config, const SharedRuntime& runtime, bool simulated);
  DeviceNode(const DeviceNode&) = delete;
  DeviceNode& operator=(const DeviceNode&) = delete;

  void start(std::chrono::milliseconds initial_delay);
  mqtt::token_ptr begin_stop();
  // --deregister in steps a fleet runs for all its nodes at once: connect (no announce, no
  // subscriptions), then clear the retained announce (zero-length, retained, QoS 1), then
  // begin_stop(). Each returns the token to wait on, nullptr on failure (logged).
  mqtt::token_ptr begin_deregister();
  mqtt::token_ptr clear_announce();

  const std::string& node_id() const { return config_.node_id; }
  const DeviceConfig& config() const { return config_; }
  size_t tool_count() const { return tools_.size(); }
  SignedAnnounce sign_announce() const { return signer_.sign(now_ms()); }

 private:
  NodeServices make_services();
  // The manifest's hostname: device.conf's, else the host's (a simulated node: sim-<end of node_id>).
  std::string announced_hostname() const;
  SessionSettings session_settings() const;
  void on_connected();
  void on_message(const std::string& topic, const std::string& payload);
  void publish_announce();
  void schedule_announce_refresh(uint64_t generation, int64_t delay_ms);
  void restart_telemetry(std::chrono::milliseconds first_delay);
  void telemetry_tick(uint64_t generation);
  void on_rejected(const std::string& payload);
  void on_status(const std::string& payload);
  void send_ack(const std::string& ack);

  const DeviceConfig config_;
  const bool simulated_;
  const SharedRuntime runtime_;
  const NodeTopics topics_;
  const NodeIdentity identity_;
  TelemetryCadence cadence_;
  CommandAudit audit_;  // before services_ and tools_: a logs.audit capability configures it
  const NodeServices services_;
  const ToolTable tools_;
  const AnnounceSigner signer_;
  CommandDispatcher dispatcher_;
  MqttSession session_;  // after everything its callbacks use, so it is destroyed first
  std::atomic<uint64_t> announce_generation_{0}, telemetry_generation_{0};
  std::atomic<bool> deregistering_{false};
  std::mutex rejection_mutex_;
  std::string last_rejection_;  // code + message of the last rejection logged at ERROR
};

}  // namespace fleetmcp::device
