#include "broker_plugin/http/fleet/fleet_view.h"

#include <algorithm>
#include <cstring>

#include "common/base/bytes.h"
#include "common/crypto/digest.h"

namespace fleetmcp::http {

namespace {

// Everything about a tool that a tools/list answer shows, hashed.
std::array<uint64_t, 4> hash_listing(const FleetTool& tool) {
  Blake3Hasher hasher;
  for (const std::string_view part : {std::string_view(tool.canonical_name), std::string_view("|"), std::string_view(tool.verb.input_schema),
                                      std::string_view("|"), std::string_view(tool.verb.output_schema),
                                      std::string_view("|"), safety_class_name(tool.safety_class)}) {
    hasher.update(as_bytes(part));
  }
  const Digest32 hash = hasher.finalize();
  std::array<uint64_t, 4> lanes{};
  std::memcpy(lanes.data(), hash.data(), sizeof lanes);
  return lanes;
}

}  // namespace

// Unsigned arithmetic: the sums wrap mod 2^64 both ways, so a removal undoes its addition.
void FleetSnapshot::ListingDigest::add(const Lanes& listing) {
  for (size_t i = 0; i < sum.size(); ++i) sum[i] += listing[i];
  ++count;
}

void FleetSnapshot::ListingDigest::remove(const Lanes& listing) {
  for (size_t i = 0; i < sum.size(); ++i) sum[i] -= listing[i];
  --count;
}

std::string FleetSnapshot::ListingDigest::hex() const {
  std::array<uint8_t, sizeof count + sizeof sum> bytes{};
  std::memcpy(bytes.data(), &count, sizeof count);
  std::memcpy(bytes.data() + sizeof count, sum.data(), sizeof sum);
  return hex_lower(bytes);
}

FleetSnapshot::FleetSnapshot(uint64_t generation, std::vector<FleetNode> nodes) : generation_(generation) {
  for (FleetNode& node : nodes) put(std::move(node));
}

std::shared_ptr<const FleetSnapshot> FleetSnapshot::next(uint64_t generation, std::vector<FleetNode> changed,
                                                         const std::vector<std::string>& removed) const {
  // Copies the roots and the per-tenant entries only: the maps below them are shared.
  auto out = std::shared_ptr<FleetSnapshot>(new FleetSnapshot(*this));
  out->generation_ = generation;
  for (const std::string& node_id : removed) out->remove(node_id);
  for (FleetNode& node : changed) out->put(std::move(node));
  return out;
}

// A node that stays in its tenant is replaced in place: entries whose key stays are reassigned
// (a path copy, no rebalancing), which is most of them (a status change keeps the tools, a new
// manifest usually the same capabilities).
void FleetSnapshot::put(FleetNode node) {
  const auto* found = nodes_.find(node.node_id);
  std::shared_ptr<const StoredNode> old = found != nullptr ? *found : nullptr;
  if (old && old->node.tenant != node.tenant) {
    remove(node.node_id);
    old.reset();
  }
  auto stored = std::make_shared<StoredNode>();
  stored->node = std::move(node);
  for (FleetTool& tool : stored->node.tools) {
    tool.canonical_name = tool.name.dotted();
    stored->listing_hashes.push_back(hash_listing(tool));
  }
  const FleetNode& n = stored->node;
  TenantIndex& t = tenants_[n.tenant];
  if (old) {
    for (size_t i = 0; i < old->node.tools.size(); ++i) {
      t.digest.remove(old->listing_hashes[i]);
      const std::string& name = old->node.tools[i].canonical_name;
      const auto& tools = stored->node.tools;
      if (std::none_of(tools.begin(), tools.end(), [&](const FleetTool& tool) { return tool.canonical_name == name; })) {
        t.tools = t.tools.erase(name);
      }
    }
    count(old->node, -1);
  }
  for (size_t i = 0; i < n.tools.size(); ++i) {
    t.digest.add(stored->listing_hashes[i]);
    t.tools = t.tools.insert_or_assign(n.tools[i].canonical_name, &n.tools[i]);
  }
  t.nodes = t.nodes.insert_or_assign(n.node_id, stored);
  nodes_ = nodes_.insert_or_assign(n.node_id, stored);
  count(n, +1);
}

void FleetSnapshot::remove(std::string_view node_id) {
  const auto* found = nodes_.find(node_id);
  if (found == nullptr) return;
  const std::shared_ptr<const StoredNode> old = *found;  // keeps the keys alive until they are out
  const auto t = tenants_.find(old->node.tenant);
  for (size_t i = 0; i < old->node.tools.size(); ++i) {
    t->second.digest.remove(old->listing_hashes[i]);
    t->second.tools = t->second.tools.erase(old->node.tools[i].canonical_name);
  }
  t->second.nodes = t->second.nodes.erase(old->node.node_id);
  if (t->second.nodes.empty()) tenants_.erase(t);
  nodes_ = nodes_.erase(old->node.node_id);
  count(old->node, -1);
}

void FleetSnapshot::count(const FleetNode& node, int sign) {
  uint64_t& state = by_state_[static_cast<size_t>(node.state)];
  const bool serving = node.state == NodeState::kOnline && !node.tools.empty();
  if (sign > 0) {
    ++state;
    if (serving) ++serving_;
  } else {
    --state;
    if (serving) --serving_;
  }
}

const FleetSnapshot::ToolIndex& FleetSnapshot::tools(std::string_view tenant) const {
  static const ToolIndex kNone;
  const auto it = tenants_.find(tenant);
  return it == tenants_.end() ? kNone : it->second.tools;
}

const FleetTool* FleetSnapshot::find_tool(std::string_view tenant, const ToolNameView& name) const {
  const FleetNode* n = node(tenant, name.node_id);
  if (n == nullptr) return nullptr;
  for (const FleetTool& tool : n->tools) {
    if (tool.name.kind_short == name.kind_short && tool.name.cap_id == name.cap_id && tool.name.verb == name.verb) {
      return &tool;
    }
  }
  return nullptr;
}

const FleetTool* FleetSnapshot::same_tool(std::string_view tenant, const FleetTool& held) const {
  const FleetNode* n = node(tenant, held.name.node_id);
  if (n == nullptr) return nullptr;
  const std::less<const FleetTool*> before;
  if (!n->tools.empty() && !before(&held, n->tools.data()) && before(&held, n->tools.data() + n->tools.size())) {
    return &held;
  }
  for (const FleetTool& tool : n->tools) {
    if (tool.canonical_name == held.canonical_name) return &tool;
  }
  return nullptr;
}

const FleetNode* FleetSnapshot::node(std::string_view tenant, std::string_view node_id) const {
  const auto t = tenants_.find(tenant);
  if (t == tenants_.end()) return nullptr;
  const auto* n = t->second.nodes.find(node_id);
  return n == nullptr ? nullptr : &(*n)->node;
}

std::vector<const FleetNode*> FleetSnapshot::nodes(std::string_view tenant) const {
  std::vector<const FleetNode*> out;
  const auto t = tenants_.find(tenant);
  if (t == tenants_.end()) return out;
  out.reserve(t->second.nodes.size());
  for (const auto& stored : t->second.nodes) out.push_back(&stored->node);
  return out;
}

std::vector<std::string> FleetSnapshot::tenants() const {
  std::vector<std::string> out;
  for (const auto& [tenant, index] : tenants_) out.push_back(tenant);
  return out;
}

std::map<std::string_view, uint64_t> FleetSnapshot::count_by_state() const {
  std::map<std::string_view, uint64_t> by_state;
  for (const NodeState s : {NodeState::kOnline, NodeState::kOffline, NodeState::kExpired, NodeState::kRevoked}) {
    by_state[node_state_name(s)] = by_state_[static_cast<size_t>(s)];
  }
  return by_state;
}

std::string FleetSnapshot::tools_digest(std::string_view tenant) const {
  const auto t = tenants_.find(tenant);
  return t == tenants_.end() ? ListingDigest().hex() : t->second.digest.hex();
}

}  // namespace fleetmcp::http
