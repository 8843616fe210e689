#include "device_client/node/device_fleet.h"

#include <algorithm>
#include <random>

#include "common/ids/ulid.h"
#include "device_client/simulated/simulated_catalogue.h"
#include "device_client/session/event_log.h"

namespace fleetmcp::device {
namespace {

std::vector<DeviceConfig> load_configs(const FleetOptions& options) {
  std::vector<DeviceConfig> configs;
  configs.reserve(options.config_files.size());
  for (const std::string& f : options.config_files) {
    configs.push_back(load_device_config(f));
    if (options.catalogue) add_simulated_catalogue(configs.back());
  }
  return configs;
}

// RFC 004 offline profile: every hash is verified here, and a mismatch refuses to start, naming
// the file (SchemaRegistry::load throws).
std::shared_ptr<const SchemaRegistry> load_schemas(const FleetOptions& options,
                                                   const std::vector<DeviceConfig>& configs) {
  std::string dir = options.schema_dir;
  if (dir.empty() && !configs.empty()) dir = configs.front().schema_dir;
  if (dir.empty()) dir = SchemaRegistry::default_dir();
  return SchemaRegistry::load(dir);
}

// Waits for `token`; false (logged) when it failed, timed out or was never issued.
bool completed(const mqtt::token_ptr& token, const std::string& node_id, std::string_view step) {
  try {
    if (token && token->wait_for(std::chrono::seconds(10))) return true;
  } catch (const mqtt::exception& e) {
    log_error(node_id, "deregister.failed", std::string(step) + ": " + e.what());
    return false;
  }
  log_error(node_id, "deregister.failed", std::string(step) + " did not complete; is the broker reachable?");
  return false;
}

}  // namespace

size_t DeviceFleet::worker_count(const FleetOptions& options, const std::vector<DeviceConfig>& configs) {
  if (options.workers > 0) return options.workers;
  if (options.simulated) return 8;
  int concurrency = 0;
  for (const auto& cap : configs.front().capabilities) concurrency += cap.constraints.max_concurrency;
  return static_cast<size_t>(std::clamp(concurrency, 2, 8));
}

DeviceFleet::DeviceFleet(const FleetOptions& options)
    : configs_(load_configs(options)),
      schemas_(load_schemas(options, configs_)),
      catalogue_(HandlerCatalogue::builtin()),
      workers_(worker_count(options, configs_)) {
  const SharedRuntime runtime{schemas_,  &catalogue_, &host_metrics_, &timers_,
                              &workers_, options.test_hooks, now_ms()};
  if (options.test_hooks) log_warn("", "test_hooks.enabled", "echo honours sleep:<ms>; never use this in production");
  nodes_.reserve(configs_.size());
  for (DeviceConfig& config : configs_) {
    nodes_.push_back(std::make_unique<DeviceNode>(std::move(config), runtime, options.simulated));
  }
  configs_.clear();
}

DeviceFleet::~DeviceFleet() { stop(); }

void DeviceFleet::start() {
  started_ = true;
  std::mt19937_64 random{std::random_device{}()};
  const int64_t spread_ms = nodes_.size() > 1 ? static_cast<int64_t>(nodes_.size()) : 0;
  for (auto& node : nodes_) {
    const int64_t delay = spread_ms ? std::uniform_int_distribution<int64_t>(0, spread_ms)(random) : 0;
    node->start(std::chrono::milliseconds(delay));
  }
  log_info("", "fleet.started", std::to_string(nodes_.size()) + " node(s), " +
                                    std::to_string(workers_.size()) + " handler workers");
  notifier_.ready(timers_);
  notifier_.status("connecting " + std::to_string(nodes_.size()) + " node(s)");
}

bool DeviceFleet::stop() {
  if (stopped_) return true;
  stopped_ = true;
  if (started_) notifier_.stopping();
  // All DISCONNECTs go out together, then we wait for them against one deadline: a thousand nodes
  // stop in about one round trip, and a vanished broker costs 2 s, not 2 s per node.
  std::vector<mqtt::token_ptr> pending;
  for (auto& node : nodes_) {
    if (auto tok = node->begin_stop()) pending.push_back(std::move(tok));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (auto& tok : pending) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    try {
      tok->wait_for(std::max(left, std::chrono::milliseconds(0)));
    } catch (const mqtt::exception& e) {
      log_debug("", "mqtt.disconnect_wait", e.what());
    }
  }
  timers_.stop();
  const bool drained = workers_.shutdown(std::chrono::seconds(2));
  if (started_) log_info("", "fleet.stopped", std::to_string(pending.size()) + " session(s) disconnected");
  return drained;
}

bool DeviceFleet::deregister() {
  std::vector<mqtt::token_ptr> tokens;
  for (auto& node : nodes_) tokens.push_back(node->begin_deregister());
  std::vector<bool> ok(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    ok[i] = completed(tokens[i], nodes_[i]->node_id(), "connect");
    tokens[i] = ok[i] ? nodes_[i]->clear_announce() : nullptr;
  }
  bool all = true;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (ok[i] && completed(tokens[i], nodes_[i]->node_id(), "clearing the retained announce")) {
      log_info(nodes_[i]->node_id(), "announce.cleared", "retained announce removed (deregistered)");
    } else {
      all = false;
    }
  }
  stop();
  return all;
}

}  // namespace fleetmcp::device
