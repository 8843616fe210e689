// MESSAGE: what a publish that passed its ACL check means, routed to the collaborator that keeps it
// (a node's announce to Announces, its cmd_ack to CallDispatch, telemetry to the observer).
//
// Traffic that crosses a bridge between brokers (docs/protocol.md §12, docs/sharding.md). It reaches the
// plugin in one of two shapes:
//  - this broker's own bridge (a `connection` in mosquitto.conf) delivers what it received from
//    the other broker. mosquitto skips the ACL check for bridges, so such a message arrives in
//    MOSQ_EVT_MESSAGE from a client the plugin never identified: no session means a bridge;
//  - another broker's bridge connects here as a client with a fleet:bridge token (a `bridge`
//    principal). Its publishes pass the topic policy like anyone's, then MESSAGE.
// Either way a bridge is trusted to carry traffic, not to vouch for it. An announce is verified
// (docs/protocol.md §5) against the node's enrolled certificate; status, telemetry and cmd_ack are believed
// only for remote nodes, never for a node connected here, whose state this plugin owns.
#include "broker_plugin/core/fleet_plugin.h"

#include "common/ids/ulid.h"
#include "common/protocol/topics.h"

namespace fleetmcp::plugin {

Verdict FleetPlugin::on_message(const ClientView& client, const MessageEvent& event) {
  const auto topic = parse_devices_topic(event.topic);
  if (!topic) return Verdict::kAllow;
  // Every client's publish passed an ACL check first, which gave it a session; only this broker's
  // own bridge publishes without one (mosquitto skips the check for bridges).
  const Session* session = admission_.find(client);
  if (session == nullptr || (session->principal && session->principal->kind == PrincipalKind::kBridge)) {
    return on_bridged_message(client, *topic, event);
  }
  if (!session->principal) return topic->kind == DeviceLeaf::kAnnounce ? Verdict::kDeny : Verdict::kAllow;
  // The policy lets only the node itself publish on these leaves of its topics.
  const Principal& who = *session->principal;
  if (who.kind != PrincipalKind::kNode || who.name != topic->node_id) return Verdict::kAllow;
  switch (topic->kind) {
    case DeviceLeaf::kAnnounce: return announces_.commit(client, who, event.payload);
    case DeviceLeaf::kCmdAck: calls_.on_cmd_ack(topic->node_id, event.payload, /*over_bridge=*/false); break;
    case DeviceLeaf::kTelemetry:
      if (observer_ != nullptr) observer_->telemetry_arrived(topic->node_id, event.payload);
      break;
    default: break;
  }
  return Verdict::kAllow;
}

Verdict FleetPlugin::on_bridged_message(const ClientView& bridge, const DevicesTopic& topic, const MessageEvent& event) {
  if (!is_node_id(topic.node_id)) return Verdict::kDeny;
  announces_.bridged().carried(bridge.handle);
  const NodeRecord* node = announces_.registry().find(topic.node_id);
  const bool here = node != nullptr && node->session != nullptr;
  switch (topic.kind) {
    case DeviceLeaf::kCmd:
      if (here) calls_.note_relayed_cmd(event.payload);
      return Verdict::kAllow;
    case DeviceLeaf::kAnnounce:
    case DeviceLeaf::kStatus:
    case DeviceLeaf::kTelemetry:
    case DeviceLeaf::kCmdAck:
      // A node connected here is this plugin's to speak for: a bridge's word on it is an echo
      // (or a lie), and must not overwrite what this broker holds.
      if (here) return Verdict::kDeny;
      break;
    default:
      return Verdict::kDeny;  // rejected stays with the broker the node is connected to
  }
  switch (topic.kind) {
    case DeviceLeaf::kAnnounce: return announces_.bridged().accept(bridge, topic.node_id, event.payload, event.retain);
    case DeviceLeaf::kStatus: return announces_.bridged().accept_status(bridge, topic.node_id, event.payload);
    case DeviceLeaf::kTelemetry:
      if (node != nullptr && node->remote && observer_ != nullptr) observer_->telemetry_arrived(topic.node_id, event.payload);
      return Verdict::kAllow;
    default:  // kCmdAck
      if (node != nullptr && node->remote) calls_.on_cmd_ack(topic.node_id, event.payload, /*over_bridge=*/true);
      return Verdict::kAllow;
  }
}

}  // namespace fleetmcp::plugin
