#include "broker_plugin/announces/node_status.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/protocol/topics.h"

namespace fleetmcp::plugin {

std::string status_message(const NodeRecord& node, NodeState state, int64_t since_ms) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("node_id");
  w.String(node.node_id.c_str(), static_cast<rapidjson::SizeType>(node.node_id.size()));
  w.Key("state");
  const std::string_view name = node_state_name(state);
  w.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
  w.Key("since_ms");
  w.Int64(since_ms);
  if (node.manifest) {
    w.Key("manifest_etag");
    w.String(node.manifest->etag.c_str(), static_cast<rapidjson::SizeType>(node.manifest->etag.size()));
    w.Key("expires_at_ms");
    w.Int64(node.manifest->expires_at_ms);
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

void NodeStatus::refresh(NodeRecord& node) {
  changed(node.node_id);
  if (node.remote) return;
  const NodeState state = node.state();
  const std::string etag = node.manifest ? node.manifest->etag : std::string();
  if (node.published_state == state && node.published_etag == etag) return;
  if (node.published_state != state) node.since_ms = clock_();
  node.published_state = state;
  node.published_etag = etag;
  broker_.publish("", devices_topic(node.node_id, DeviceLeaf::kStatus), status_message(node, state, node.since_ms), 1,
                  true);
}

void NodeStatus::went_offline(std::string_view node_id, bool fail_calls) {
  if (fail_calls && unreachable_) unreachable_(node_id);
  if (observer_ != nullptr) observer_->node_went_offline(node_id);
}

}  // namespace fleetmcp::plugin
