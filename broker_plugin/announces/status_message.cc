#include "broker_plugin/announces/status_message.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

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

}  // namespace fleetmcp::plugin
