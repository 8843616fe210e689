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
#include "device_client/node/time_sync_wait.h"

namespace fleetmcp::device {

struct FleetOptions {
  std::vector<std::string> config_files;  // one per node
  bool simulated = false;
  bool test_hooks = false;
  bool catalogue = false;  // --catalogue: add the simulated Doc 05 catalogue to every node
  std::string schema_dir;  // overrides the configs' schema_dir
  size_t workers = 0;      // 0: sized from the capabilities' max_concurrency
  bool wait_for_time_sync = false;  // connect once the clock is synchronised (node/time_sync_wait.h)
};

class DeviceFleet {
 public:
  // Loads every node; throws the first error, naming its file.
  explicit DeviceFleet(const FleetOptions& options);
  ~DeviceFleet();

  // Tells systemd the process is ready and starts the watchdog pings (node/service_notifier.h),
  // then connects every node, with --wait-for-time-sync once the clock is synchronised; simulated
  // nodes spread their first connects over ~1 ms per node.
  void start();
  // Disconnects every node cleanly and stops the shared threads. False when a handler was still
  // stuck after the grace period (its worker thread was left behind; exit promptly).
  bool stop();
  // --deregister for every node; true when all succeeded.
  bool deregister();

  const std::vector<std::unique_ptr<DeviceNode>>& nodes() const { return nodes_; }

 private:
  void look_at_clock();
  void start_nodes();
  static size_t worker_count(const FleetOptions& options, const std::vector<DeviceConfig>& configs);

  std::vector<DeviceConfig> configs_;
  std::shared_ptr<const SchemaRegistry> schemas_;
  HandlerCatalogue catalogue_;
  HostMetrics host_metrics_;
  TimerQueue timers_;
  ServiceNotifier notifier_;
  WorkerPool workers_;
  bool wait_for_time_sync_;
  TimeSyncWait time_sync_wait_{std::chrono::seconds(60)};
  std::vector<std::unique_ptr<DeviceNode>> nodes_;
  bool started_ = false, stopped_ = false;
};

}  // namespace fleetmcp::device
