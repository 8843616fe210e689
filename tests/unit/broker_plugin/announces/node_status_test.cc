// NodeStatus: the retained status message, published when a node's state or etag changes, and the
// observer told of every change.
#include <gtest/gtest.h>

#include "broker_plugin/announces/node_status.h"
#include "tests/support/broker_plugin/recording_observer.h"
#include "tests/support/plugin_fake_broker.h"

namespace fleetmcp::plugin {
namespace {

const std::string kA = "01hzx9k3m4p7q8r9s0t1v2w3xy";

std::shared_ptr<const ManifestSummary> manifest(int64_t expires_at_ms, std::string etag) {
  auto m = std::make_shared<ManifestSummary>();
  m->node_id = kA;
  m->etag = std::move(etag);
  m->expires_at_ms = expires_at_ms;
  return m;
}

TEST(StatusMessage, MatchesTheStatusSchemaShape) {
  NodeRecord n;
  n.node_id = kA;
  EXPECT_EQ(status_message(n, NodeState::kOnline, 1763800000000),
            R"({"node_id":")" + kA + R"(","state":"online","since_ms":1763800000000})");
  n.manifest = manifest(1763800009000, std::string(64, 'b'));
  EXPECT_EQ(status_message(n, NodeState::kExpired, 1763800009000),
            R"({"node_id":")" + kA + R"(","state":"expired","since_ms":1763800009000,"manifest_etag":")" +
                std::string(64, 'b') + R"(","expires_at_ms":1763800009000})");
}

class NodeStatusTest : public ::testing::Test {
 protected:
  NodeStatusTest() {
    node.node_id = kA;
    status.set_observer(&observer);
  }
  size_t statuses() { return broker.take(testing::topic(kA, "status")).size(); }

  int64_t now = 1000;
  PluginClock clock = [this] { return now; };
  testing::FakeBroker broker;
  testing::RecordingObserver observer;
  NodeStatus status{broker, clock};
  NodeRecord node;
};

TEST_F(NodeStatusTest, PublishesWhenTheStateOrEtagChangesAndTellsTheObserverEveryTime) {
  status.refresh(node);
  EXPECT_EQ(statuses(), 1u);
  EXPECT_TRUE(observer.changed_since(kA));
  status.refresh(node);
  EXPECT_EQ(statuses(), 0u) << "nothing changed";
  EXPECT_TRUE(observer.changed_since(kA));
  node.manifest = manifest(9000, std::string(64, 'a'));
  now = 2000;
  status.refresh(node);
  EXPECT_EQ(statuses(), 1u) << "a new etag";
  EXPECT_EQ(node.since_ms, 1000) << "the state did not change";
  node.revoked = true;
  status.refresh(node);
  EXPECT_EQ(statuses(), 1u);
  EXPECT_EQ(node.since_ms, 2000);
}

TEST_F(NodeStatusTest, ARemoteNodesStatusIsItsOwnersToPublish) {
  node.remote = true;
  status.refresh(node);
  EXPECT_EQ(statuses(), 0u);
  EXPECT_TRUE(observer.changed_since(kA));
}

TEST_F(NodeStatusTest, WentOfflineFailsTheNodesCallsOnlyWhenAsked) {
  std::vector<std::string> said;
  status.set_unreachable([&](std::string_view id) { said.push_back("unreachable " + std::string(id)); });
  status.went_offline(kA, /*fail_calls=*/false);
  EXPECT_TRUE(said.empty());
  EXPECT_EQ(observer.offline, std::vector<std::string>{kA});
  status.went_offline(kA, /*fail_calls=*/true);
  EXPECT_EQ(said, std::vector<std::string>{"unreachable " + kA});
  EXPECT_EQ(observer.offline.size(), 2u);
}

}  // namespace
}  // namespace fleetmcp::plugin
