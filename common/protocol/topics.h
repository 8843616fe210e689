// The topics of the fleet (docs/protocol.md §3): $devices/<node_id>/<leaf>, built and parsed here
// for the device, the plugin and fleetctl alike. Parsing is allocation-free because the plugin runs
// it on every ACL check, READ included (bench/plugin_core.cc measures that path).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fleetmcp {

inline constexpr std::string_view kDevicesRoot = "$devices";
inline constexpr std::string_view kDevicesPrefix = "$devices/";

enum class DeviceLeaf { kAnnounce, kStatus, kTelemetry, kCmd, kCmdAck, kRejected, kOther };

// Subscriptions that read every node's retained manifest or status (the plugin's waker, fleetctl).
inline constexpr const char* kEveryAnnounce = "$devices/+/announce";
inline constexpr const char* kEveryStatus = "$devices/+/status";

struct DevicesTopic {
  std::string_view node_id;  // the second level, unvalidated: check is_node_id before trusting it
  std::string_view leaf;     // everything after the node level ("" when absent)
  DeviceLeaf kind = DeviceLeaf::kOther;
};

inline bool is_devices_topic(std::string_view topic) {
  return topic.starts_with(kDevicesPrefix) || topic == kDevicesRoot;
}

// nullopt unless `topic` is $devices/<level>[/<rest>]. The views point into `topic`.
std::optional<DevicesTopic> parse_devices_topic(std::string_view topic);

// The concrete topic of one node. `node_id` must already satisfy is_node_id(): it is validated
// before any topic is built from it, so '+', '#' and '/' can never reach a topic string.
std::string devices_topic(std::string_view node_id, DeviceLeaf leaf);
std::string_view device_leaf_name(DeviceLeaf leaf);  // "" for kOther

}  // namespace fleetmcp
