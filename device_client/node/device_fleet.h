// The nodes of one fleetmcp-device process and what they share: the schema registry (verified
// once, fail closed), the handler catalogue, host metrics, one TimerQueue thread and one worker
// pool. One node on a Pi; N with --simulate.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "device_client/node/device_node.h"
#include "device_client/node/service_notifier.h"

namespace fleetmcp::device {

struct FleetOptions {
  std::vector<std::string> config_files;  // one per node
  bool simulated = false;
  bool test_hooks = false;
  bool catalogue = false;  // --catalogue: add the simulated Doc 05 catalogue to every node
  std::string schema_dir;  // overrides the configs' schema_dir
  size_t workers = 0;      // 0: sized from the capabilities' max_concurrency
};

class DeviceFleet {
 public:
  // Loads every node; throws the first error, naming its file.
  explicit DeviceFleet(const FleetOptions& options);
  ~DeviceFleet();

  // Connects every node; simulated nodes spread their first connects over ~1 ms per node. Then
  // tells systemd the process is ready and starts the watchdog pings (node/service_notifier.h).
  void start();
  // Disconnects every node cleanly and stops the shared threads. False when a handler was still
  // stuck after the grace period (its worker thread was left behind; exit promptly).
  bool stop();
  // --deregister for every node; true when all succeeded.
  bool deregister();

  const std::vector<std::unique_ptr<DeviceNode>>& nodes() const { return nodes_; }

 private:
  static size_t worker_count(const FleetOptions& options, const std::vector<DeviceConfig>& configs);

  std::vector<DeviceConfig> configs_;
  std::shared_ptr<const SchemaRegistry> schemas_;
  HandlerCatalogue catalogue_;
  HostMetrics host_metrics_;
  TimerQueue timers_;
  ServiceNotifier notifier_;
  WorkerPool workers_;
  std::vector<std::unique_ptr<DeviceNode>> nodes_;
  bool started_ = false, stopped_ = false;
};

}  // namespace fleetmcp::device
