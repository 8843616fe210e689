#include "broker_plugin/announces/node_registry.h"

namespace fleetmcp::plugin {

NodeState NodeRecord::state() const {
  if (revoked) return NodeState::kRevoked;
  if (manifest && manifest_expired) return NodeState::kExpired;
  return live() ? NodeState::kOnline : NodeState::kOffline;
}

AnnounceContext announce_facts(const NodeRecord* node, std::string_view node_id, const Certificate* cert,
                               int64_t now_ms) {
  AnnounceContext facts{.now_ms = now_ms,
                        .topic_node_id = node_id,
                        .publisher_identity = node_id,
                        .certificate = cert,
                        .chain_verified = true};
  if (node != nullptr) {
    facts.last_issued_at_ms = node->last_issued_at_ms;
    if (node->hw_pin && cert != nullptr && node->hw_pin->kid == cert->thumbprint()) {
      facts.pinned_hw_fingerprint = node->hw_pin->fingerprint;
    }
  }
  return facts;
}

NodeRecord* NodeRegistry::find(std::string_view node_id) {
  const auto it = nodes_.find(node_id);
  return it == nodes_.end() ? nullptr : &it->second;
}

const NodeRecord* NodeRegistry::find(std::string_view node_id) const {
  const auto it = nodes_.find(node_id);
  return it == nodes_.end() ? nullptr : &it->second;
}

NodeRecord& NodeRegistry::get_or_create(std::string_view node_id, std::string_view tenant) {
  auto it = nodes_.find(node_id);
  if (it == nodes_.end()) {
    it = nodes_.emplace(std::string(node_id), NodeRecord{}).first;
    it->second.node_id = node_id;
  }
  // A node's tenant is its certificate's O; a re-enrolment may move it.
  if (!tenant.empty()) it->second.tenant = tenant;
  return it->second;
}

void NodeRegistry::for_each(const std::function<void(NodeRecord&)>& visit) {
  for (auto& [id, node] : nodes_) visit(node);
}

void NodeRegistry::for_each(const std::function<void(const NodeRecord&)>& visit) const {
  for (const auto& [id, node] : nodes_) visit(node);
}

void NodeRegistry::schedule_expiry(const NodeRecord& node) {
  if (const auto it = scheduled_.find(node.node_id); it != scheduled_.end()) {
    expiry_.erase({it->second, node.node_id});
    scheduled_.erase(it);
  }
  if (!node.manifest || node.manifest_expired) return;
  expiry_.emplace(node.manifest->expires_at_ms, node.node_id);
  scheduled_.emplace(node.node_id, node.manifest->expires_at_ms);
}

std::vector<NodeRecord*> NodeRegistry::take_expired(int64_t now_ms) {
  std::vector<NodeRecord*> due;
  while (!expiry_.empty() && expiry_.begin()->first <= now_ms) {
    const std::string node_id = expiry_.begin()->second;
    expiry_.erase(expiry_.begin());
    scheduled_.erase(node_id);
    if (NodeRecord* node = find(node_id)) due.push_back(node);
  }
  return due;
}

}  // namespace fleetmcp::plugin
