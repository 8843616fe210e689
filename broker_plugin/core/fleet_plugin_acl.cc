// ACL checks, routed to the collaborators. mosquitto asks on every publish (WRITE), every Will (WRITE, after DISCONNECT),
// every subscription filter (SUBSCRIBE), every delivery to every matching subscription (READ)
// and, with check_retain_source, every retained delivery again as a WRITE by the message's
// original publisher. READ is the hot path: a session lookup, a topic split, a few rules and at
// most one registry lookup; no allocation, no logging.
#include "broker_plugin/core/fleet_plugin.h"

#include "common/protocol/topics.h"
#include "common/crypto/digest.h"
#include "common/ids/ulid.h"

namespace fleetmcp::plugin {
namespace {

std::string_view access_name(AclAccess access) {
  switch (access) {
    case kAclRead: return "read";
    case kAclWrite: return "publish";
    case kAclSubscribe: return "subscribe";
    case kAclUnsubscribe: return "unsubscribe";
  }
  return "access";
}

// The node level of a $devices/ topic must be a node_id before anything is built from it; a
// subscription filter may also use '+' there (the policy decides what it may cover).
bool node_level_valid(const DevicesTopic& topic, AclAccess access) {
  return is_node_id(topic.node_id) || (access == kAclSubscribe && topic.node_id == "+");
}

}  // namespace

Verdict FleetPlugin::on_acl_check(const ClientView& client, const AclEvent& event) {
  if (client.protocol_version == 0 && client.address.empty() && event.access == kAclWrite) {
    // check_retain_source: a retained message's original publisher, asked again at delivery.
    return is_devices_topic(event.topic) ? announces_.restored().check_retain_source(client, event.topic, event.payload)
                                         : Verdict::kDefer;
  }
  Session* session = session_for(client);
  if (!session->principal) return refuse_unidentified(client, *session, event);
  if (admission_.token_expired(*session->principal)) {
    admission_.queue_kick(client.handle, *session, "agent token expired");
    return Verdict::kDeny;
  }
  if (event.access == kAclUnsubscribe) return Verdict::kAllow;  // giving something up never leaks
  if (is_devices_topic(event.topic)) return check_devices_topic(client, *session, event);
  return check_other_topic(*session, event);
}

Session* FleetPlugin::admitted(Session* session, const ClientView& client) {
  if (session->principal && session->principal->kind == PrincipalKind::kNode) {
    announces_.node_connected(client.handle, *session->principal);
  }
  return session;
}

AclVerdict FleetPlugin::evaluate_policy(const Session& session, const AclEvent& event) const {
  const AclQuery query{.who = *session.principal,
                       .access = event.access,
                       .topic = event.topic,
                       .retain = event.retain,
                       .is_will = session.ended && event.access == kAclWrite,
                       .payload_empty = event.payload.empty()};
  return acl_.evaluate(query, announces_.facts());
}

Verdict FleetPlugin::check_devices_topic(const ClientView& client, Session& session, const AclEvent& event) {
  const auto topic = parse_devices_topic(event.topic);
  if (!topic || !node_level_valid(*topic, event.access)) {
    audit_acl_denial(session, event, AclRefusal::kNoRule);
    return Verdict::kDeny;
  }
  const AclVerdict verdict = evaluate_policy(session, event);
  if (event.access == kAclWrite && verdict.rule != nullptr && verdict.rule->attest_manifest) {
    if (session.principal->kind != PrincipalKind::kBridge) {
      return announces_.check(client, *session.principal, event.payload, verdict);
    }
    // A bridge principal's announce: verified now, committed in MESSAGE.
    if (!verdict.allowed) {
      audit_acl_denial(session, event, verdict.refusal);
      return Verdict::kDeny;
    }
    return announces_.bridged().check(client, topic->node_id, event.payload);
  }
  if (!verdict.allowed && event.access == kAclWrite && topic->kind == DeviceLeaf::kAnnounce &&
      session.principal->kind == PrincipalKind::kNode && !session.ended) {
    // docs/protocol.md §5 check 5 at the topic level: explained on the publisher's own rejected topic.
    announces_.refuse(client.id, *session.principal,
                    ErrorEnvelope(ErrorCode::kAttestationFailed,
                                  "node " + session.principal->name +
                                      " may announce only on its own topic, not on another node's",
                                  "publish on $devices/<your node_id>/announce"),
                    blake3_256_hex(event.payload));
    return Verdict::kDeny;
  }
  if (!verdict.allowed) {
    audit_acl_denial(session, event, verdict.refusal);
    return Verdict::kDeny;
  }
  if (event.access == kAclWrite && topic->kind == DeviceLeaf::kCmd && session.principal->kind == PrincipalKind::kBridge) {
    return check_bridged_cmd(*session.principal, topic->node_id, event);
  }
  return Verdict::kAllow;
}

// Another broker's bridge carries the cmds of the calls made there to the nodes this broker
// routes, i.e. the nodes connected here: never to a node elsewhere (no relaying through this
// broker to a third one), nor to a node that is not here at all (issue 17).
Verdict FleetPlugin::check_bridged_cmd(const Principal& bridge, std::string_view node_id, const AclEvent& event) {
  const NodeRecord* node = announces_.registry().find(node_id);
  if (node != nullptr && node->session != nullptr) return Verdict::kAllow;
  bump(counters_.acl_denied_write);
  audit_({.caller = bridge.name,
          .topic = event.topic,
          .node_id = node_id,
          .decision = "deny",
          .code = "E_SAFETY_DENIED",
          .reason = "write: a bridge's cmd for a node not connected to this broker"});
  return Verdict::kDeny;
}

// A refused identity gets nothing, on any topic. A node refused for its certificate (revoked,
// wrong CA, bad CN) that tries to announce is told why on its own rejected topic, once.
Verdict FleetPlugin::refuse_unidentified(const ClientView& client, Session& session, const AclEvent& event) {
  if (event.access == kAclRead) {
    bump(counters_.acl_denied_read);
    return Verdict::kDeny;
  }
  const auto topic = parse_devices_topic(event.topic);
  if (session.refusal && !session.rejected_sent && event.access == kAclWrite && topic &&
      topic->kind == DeviceLeaf::kAnnounce && is_node_id(client.username) && topic->node_id == client.username) {
    session.rejected_sent = true;
    Principal claimed;
    claimed.kind = PrincipalKind::kNode;
    claimed.name = client.username;
    announces_.refuse(client.id, claimed,
                    ErrorEnvelope(session.refusal->code, "the node's identity is refused: " + session.refusal->reason,
                                  "re-enroll the node (fleetctl pki enroll) and install the new bundle"),
                    blake3_256_hex(event.payload));
  }
  return Verdict::kDeny;
}

// Topics outside $devices/ (the $CONTROL driver, the waker's wake topic, an operator's own):
// the policy may allow them; otherwise the next mechanism decides (all defer = denied).
Verdict FleetPlugin::check_other_topic(Session& session, const AclEvent& event) {
  return evaluate_policy(session, event).allowed ? Verdict::kAllow : Verdict::kDefer;
}

void FleetPlugin::audit_acl_denial(const Session& session, const AclEvent& event, AclRefusal refusal) {
  switch (event.access) {
    case kAclRead:
      // Once per delivery: tenant filtering of '+' subscriptions is routine, so it is counted only.
      bump(counters_.acl_denied_read);
      return;
    case kAclSubscribe: bump(counters_.acl_denied_subscribe); break;
    default: bump(counters_.acl_denied_write); break;
  }
  const Principal& who = *session.principal;
  const std::string reason = std::string(access_name(event.access)) + (session.ended ? " (Will)" : "") + ": " +
                             std::string(acl_refusal_name(refusal));
  audit_({.caller = who.name,
          .tenant = who.tenant,
          .topic = event.topic,
          .decision = "deny",
          .code = "E_SAFETY_DENIED",
          .reason = reason});
}

}  // namespace fleetmcp::plugin
