#include "common/protocol/topics.h"

#include <array>
#include <utility>

namespace fleetmcp {
namespace {

constexpr std::array<std::pair<DeviceLeaf, std::string_view>, 6> kLeaves{{
    {DeviceLeaf::kAnnounce, "announce"},
    {DeviceLeaf::kStatus, "status"},
    {DeviceLeaf::kTelemetry, "telemetry"},
    {DeviceLeaf::kCmd, "cmd"},
    {DeviceLeaf::kCmdAck, "cmd_ack"},
    {DeviceLeaf::kRejected, "rejected"},
}};

DeviceLeaf leaf_kind(std::string_view leaf) {
  for (const auto& [kind, name] : kLeaves) {
    if (name == leaf) return kind;
  }
  return DeviceLeaf::kOther;
}

}  // namespace

std::optional<DevicesTopic> parse_devices_topic(std::string_view topic) {
  if (!topic.starts_with(kDevicesPrefix)) return std::nullopt;
  const std::string_view rest = topic.substr(kDevicesPrefix.size());
  const size_t slash = rest.find('/');
  DevicesTopic t;
  t.node_id = rest.substr(0, slash);
  t.leaf = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
  t.kind = leaf_kind(t.leaf);
  return t;
}

std::string_view device_leaf_name(DeviceLeaf leaf) {
  for (const auto& [kind, name] : kLeaves) {
    if (kind == leaf) return name;
  }
  return "";
}

std::string devices_topic(std::string_view node_id, DeviceLeaf leaf) {
  std::string topic;
  const std::string_view name = device_leaf_name(leaf);
  topic.reserve(kDevicesPrefix.size() + node_id.size() + 1 + name.size());
  topic.append(kDevicesPrefix).append(node_id).append("/").append(name);
  return topic;
}

}  // namespace fleetmcp
