// FleetSnapshot built step by step (next(): the HTTP view's way during a connect storm) against
// the same fleet built whole, and the persistent map under it (broker_plugin/http/fleet/persistent_map.h).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "broker_plugin/http/fleet/fleet_view.h"

namespace fleetmcp::http {
namespace {

// A random fleet: a few tenants, nodes that come, change state, change manifest (tools), move
// tenant (re-enrolment) and leave.
class RandomFleet {
 public:
  explicit RandomFleet(uint32_t seed) : random_(seed) {}

  std::string node_id(int i) const {
    static constexpr std::string_view kCrockford = "0123456789abcdefghjkmnpqrstvwxyz";
    return std::string("01hzx9k3m4p7q8r9s0t1v2w3") + kCrockford[i / 32] + kCrockford[i % 32];
  }

  FleetNode random_node(int i) {
    FleetNode n;
    n.node_id = node_id(i);
    n.tenant = random_() % 4 == 0 ? "globex" : (random_() % 2 ? "acme" : "initech");
    n.state = static_cast<NodeState>(random_() % 4);
    n.manifest_etag = "etag-" + std::to_string(random_() % 5);
    n.manifest_expires_at_ms = 1'000'000 + random_() % 3;
    const int tools = n.state == NodeState::kOnline || n.state == NodeState::kOffline ? random_() % 4 : 0;
    for (int t = 0; t < tools; ++t) {
      const auto name = make_tool_name(t % 2 ? "sysecho" : "sys", n.node_id, "c" + std::to_string(t), "invoke");
      FleetTool tool{*name, "system.echo", VerbSpec{"invoke", "mcp://schemas/in" + std::to_string(random_() % 2) + "@1.0.0",
                                                    "mcp://schemas/out@1.0.0", "echo"},
                     static_cast<SafetyClass>(random_() % 3), {}};
      n.tools.push_back(std::move(tool));
    }
    return n;
  }

  std::mt19937 random_;
};

std::vector<std::string> tool_names(const FleetSnapshot& s, const std::string& tenant) {
  std::vector<std::string> out;
  for (const FleetTool* t : s.tools(tenant)) {
    out.push_back(t->name.dotted() + " " + t->verb.input_schema + " " + std::string(safety_class_name(t->safety_class)));
  }
  return out;
}

std::vector<std::string> node_lines(const FleetSnapshot& s, const std::string& tenant) {
  std::vector<std::string> out;
  for (const FleetNode* n : s.nodes(tenant)) {
    out.push_back(n->node_id + " " + std::string(node_state_name(n->state)) + " " + n->manifest_etag + " " +
                  std::to_string(n->tools.size()));
  }
  return out;
}

// Everything a reader can ask a snapshot, for the tenants named.
std::string everything(const FleetSnapshot& s) {
  std::string out = "generation " + std::to_string(s.generation()) + ", " + std::to_string(s.node_count()) +
                    " nodes, serving " + std::to_string(s.count_serving()) + "\n";
  for (const auto& [state, n] : s.count_by_state()) out += std::string(state) + " " + std::to_string(n) + "\n";
  for (const std::string& tenant : s.tenants()) out += "tenant " + tenant + "\n";
  for (const std::string tenant : {"acme", "globex", "initech", "nobody"}) {
    out += tenant + " digest " + s.tools_digest(tenant) + "\n";
    for (const auto& line : tool_names(s, tenant)) out += "  tool " + line + "\n";
    for (const auto& line : node_lines(s, tenant)) out += "  node " + line + "\n";
  }
  return out;
}

TEST(FleetSnapshotTest, StepByStepUpdatesGiveTheSnapshotOfAFullBuild) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    RandomFleet fleet(seed);
    std::map<int, FleetNode> truth;  // the fleet as a full build would see it
    auto snapshot = std::make_shared<const FleetSnapshot>(0, std::vector<FleetNode>{});
    for (uint64_t generation = 1; generation <= 300; ++generation) {
      std::vector<FleetNode> changed;
      std::vector<std::string> removed;
      const int changes = 1 + fleet.random_() % 4;  // a batch, as one view tick gathers them
      for (int c = 0; c < changes; ++c) {
        // next() takes out, then puts in: a batch names each node in one list only, its last word.
        const int i = fleet.random_() % 40;
        const std::string id = fleet.node_id(i);
        std::erase_if(changed, [&](const FleetNode& n) { return n.node_id == id; });
        std::erase(removed, id);
        if (fleet.random_() % 5 == 0) {
          removed.push_back(id);
          truth.erase(i);
        } else {
          FleetNode n = fleet.random_node(i);
          truth[i] = n;
          changed.push_back(std::move(n));
        }
      }
      const std::string before = everything(*snapshot);
      const auto next = snapshot->next(generation, std::move(changed), removed);
      EXPECT_EQ(everything(*snapshot), before) << "the snapshot readers hold does not change";

      std::vector<FleetNode> whole;
      for (const auto& [i, n] : truth) whole.push_back(n);
      const FleetSnapshot full(generation, std::move(whole));
      ASSERT_EQ(everything(*next), everything(full)) << "seed " << seed << ", generation " << generation;
      for (const auto& [i, n] : truth) {
        for (const FleetTool& t : n.tools) {
          const FleetTool* found = next->find_tool(n.tenant, t.name);
          ASSERT_NE(found, nullptr);
          EXPECT_EQ(found->name.dotted(), t.name.dotted());
          EXPECT_EQ(next->find_tool(n.tenant == "acme" ? "globex" : "acme", t.name), nullptr) << "another tenant's";
        }
      }
      snapshot = next;
    }
  }
}

TEST(FleetSnapshotTest, TheDigestMovesWithTheListingAndOnlyWithIt) {
  RandomFleet fleet(11);
  FleetNode a = fleet.random_node(1);
  a.tenant = "acme";
  a.state = NodeState::kOnline;
  a.tools.clear();
  const auto empty = std::make_shared<const FleetSnapshot>(1, std::vector<FleetNode>{a});
  EXPECT_EQ(empty->tools_digest("acme"), empty->tools_digest("nobody")) << "no tools, whoever asks";

  FleetNode with_tool = a;
  with_tool.tools.push_back(FleetTool{*make_tool_name("sysecho", a.node_id, "echo", "invoke"), "system.echo",
                                      VerbSpec{"invoke", "mcp://schemas/in@1.0.0", "mcp://schemas/out@1.0.0", "echo"},
                                      SafetyClass::kReadOnly, {}});
  const auto listed = empty->next(2, {with_tool}, {});
  EXPECT_NE(listed->tools_digest("acme"), empty->tools_digest("acme"));

  FleetNode offline = with_tool;
  offline.state = NodeState::kOffline;  // keeps its tools: tools/list shows the same
  const auto went_offline = listed->next(3, {offline}, {});
  EXPECT_EQ(went_offline->tools_digest("acme"), listed->tools_digest("acme"));
  EXPECT_EQ(went_offline->count_serving(), 0u);
  EXPECT_EQ(listed->count_serving(), 1u);

  FleetNode reclassed = with_tool;
  reclassed.tools[0].safety_class = SafetyClass::kPhysicalActuation;
  EXPECT_NE(listed->next(4, {reclassed}, {})->tools_digest("acme"), listed->tools_digest("acme"));

  const auto gone = listed->next(5, {}, {a.node_id});
  EXPECT_EQ(gone->tools_digest("acme"), empty->tools_digest("acme"));
  EXPECT_TRUE(gone->tenants().empty());
}

// A tool keeps its canonical name from the snapshot that stores it, and a confirmation re-checks
// its tool in a later snapshot by identity (same_tool), with no name parsed or looked up.
TEST(FleetSnapshotTest, AToolHeldAcrossSnapshotsIsFoundAgainWhileItStaysAndOnlyThen) {
  RandomFleet fleet(7);
  FleetNode a = fleet.random_node(1), b = fleet.random_node(2);
  a.tenant = b.tenant = "acme";
  a.state = b.state = NodeState::kOnline;
  for (FleetNode* n : {&a, &b}) {
    n->tools.clear();
    n->tools.push_back(FleetTool{*make_tool_name("sysecho", n->node_id, "echo", "invoke"), "system.echo",
                                 VerbSpec{"invoke", "mcp://schemas/in@1.0.0", "mcp://schemas/out@1.0.0", "echo"},
                                 SafetyClass::kReadOnly, {}});
  }
  const auto first = std::make_shared<const FleetSnapshot>(1, std::vector<FleetNode>{a, b});
  const FleetTool* held = first->find_tool("acme", a.tools[0].name);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->canonical_name, held->name.dotted());
  EXPECT_EQ(first->same_tool("acme", *held), held);

  FleetNode b_offline = b;
  b_offline.state = NodeState::kOffline;  // another node changed: a's stays the same object
  const auto second = first->next(2, {b_offline}, {});
  EXPECT_EQ(second->same_tool("acme", *held), held);
  EXPECT_EQ(second->same_tool("globex", *held), nullptr) << "another tenant has no such tool";

  FleetNode a_again = a;  // announced again: the same tool, in a new node object
  a_again.manifest_etag = "etag-new";
  a_again.tools.insert(a_again.tools.begin(), FleetTool{*make_tool_name("sys", a.node_id, "metrics", "snapshot"),
                                                        "system.metrics", VerbSpec{}, SafetyClass::kReadOnly, {}});
  const auto third = second->next(3, {a_again}, {});
  const FleetTool* same = third->same_tool("acme", *held);
  ASSERT_NE(same, nullptr);
  EXPECT_NE(same, held);
  EXPECT_EQ(same->canonical_name, held->canonical_name);

  FleetNode a_without = a;  // the tool is gone
  a_without.tools.clear();
  EXPECT_EQ(third->next(4, {a_without}, {})->same_tool("acme", *held), nullptr);
  EXPECT_EQ(third->next(4, {}, {a.node_id})->same_tool("acme", *held), nullptr);
}

}  // namespace
}  // namespace fleetmcp::http
