#include "broker_plugin/http/fleet_view.h"

#include <algorithm>

#include "common/bytes.h"
#include "common/digest.h"

namespace fleetmcp::http {

std::string_view node_state_name(NodeState state) {
  switch (state) {
    case NodeState::kOnline: return "online";
    case NodeState::kOffline: return "offline";
    case NodeState::kExpired: return "expired";
    case NodeState::kRevoked: return "revoked";
  }
  return "offline";
}

namespace {

// Everything about a tool that a tools/list answer shows (`dotted` is its name), hashed as it
// goes: a 10,000-node listing is 4.5 MB that need not exist as a string.
void hash_listing(const FleetTool& tool, std::string_view dotted, Blake3Hasher& hasher) {
  for (const std::string_view part : {dotted, std::string_view("|"), std::string_view(tool.verb.input_schema),
                                      std::string_view("|"), std::string_view(tool.verb.output_schema),
                                      std::string_view("|"), safety_class_name(tool.safety_class), std::string_view("\n")}) {
    hasher.update(as_bytes(part));
  }
}

}  // namespace

FleetSnapshot::FleetSnapshot(uint64_t generation, std::vector<FleetNode> nodes)
    : generation_(generation), nodes_(std::move(nodes)) {
  for (const FleetNode& node : nodes_) {
    TenantIndex& t = tenants_[node.tenant];
    t.nodes.emplace(node.node_id, &node);
    for (const FleetTool& tool : node.tools) t.tools.push_back(&tool);
  }
  for (auto& [tenant, t] : tenants_) {
    // Sorting by the dotted string (not the tokens) is what makes cursors positional: a page ends
    // at a name, the next page starts after it, whatever was added or removed meanwhile. Each
    // name is built once: building it per comparison made a 10,000-node snapshot cost ~200 ms
    // of the broker thread (bench/scale.sh).
    std::vector<std::pair<std::string, const FleetTool*>> named;
    named.reserve(t.tools.size());
    for (const FleetTool* tool : t.tools) named.emplace_back(tool->name.dotted(), tool);
    std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    Blake3Hasher listing;
    for (size_t i = 0; i < named.size(); ++i) {
      t.tools[i] = named[i].second;
      hash_listing(*named[i].second, named[i].first, listing);
    }
    t.digest = hex_lower(listing.finalize());
  }
}

const std::vector<const FleetTool*>& FleetSnapshot::tools(std::string_view tenant) const {
  static const std::vector<const FleetTool*> kNone;
  const auto it = tenants_.find(tenant);
  return it == tenants_.end() ? kNone : it->second.tools;
}

const FleetTool* FleetSnapshot::find_tool(std::string_view tenant, const ToolName& name) const {
  const FleetNode* n = node(tenant, name.node_id);
  if (n == nullptr) return nullptr;
  for (const FleetTool& tool : n->tools) {
    if (tool.name.kind_short == name.kind_short && tool.name.cap_id == name.cap_id && tool.name.verb == name.verb) {
      return &tool;
    }
  }
  return nullptr;
}

const FleetNode* FleetSnapshot::node(std::string_view tenant, std::string_view node_id) const {
  const auto t = tenants_.find(tenant);
  if (t == tenants_.end()) return nullptr;
  const auto n = t->second.nodes.find(node_id);
  return n == t->second.nodes.end() ? nullptr : n->second;
}

std::vector<const FleetNode*> FleetSnapshot::nodes(std::string_view tenant) const {
  std::vector<const FleetNode*> out;
  const auto t = tenants_.find(tenant);
  if (t == tenants_.end()) return out;
  for (const auto& [id, node] : t->second.nodes) out.push_back(node);
  return out;
}

std::vector<std::string> FleetSnapshot::tenants() const {
  std::vector<std::string> out;
  for (const auto& [tenant, index] : tenants_) out.push_back(tenant);
  return out;
}

std::map<std::string_view, uint64_t> FleetSnapshot::count_by_state() const {
  std::map<std::string_view, uint64_t> by_state{{"online", 0}, {"offline", 0}, {"expired", 0}, {"revoked", 0}};
  for (const FleetNode& n : nodes_) ++by_state[node_state_name(n.state)];
  return by_state;
}

uint64_t FleetSnapshot::count_serving() const {
  return std::count_if(nodes_.begin(), nodes_.end(),
                       [](const FleetNode& n) { return n.state == NodeState::kOnline && !n.tools.empty(); });
}

std::string FleetSnapshot::tools_digest(std::string_view tenant) const {
  const auto t = tenants_.find(tenant);
  return t == tenants_.end() ? hex_lower(Blake3Hasher().finalize()) : t->second.digest;
}

}  // namespace fleetmcp::http
