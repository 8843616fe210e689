// RestoredAnnounces, driven through FleetPlugin as mosquitto drives it: retained announces and
// status restored from persistence, met in check_retain_source's WRITE check and the waker's scan.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "common/ids/ulid.h"
#include "tests/support/plugin_fake_broker.h"

namespace fleetmcp::plugin {
namespace {

using namespace fleetmcp::testing;  // the fake broker, its fixture and test nodes

TEST(RestoredAnnounceRuns, ValidOnesSurviveInvalidOnesAreCleared) {
  std::string state = (std::filesystem::temp_directory_path() / ("fleetmcp-state-" + new_node_id())).string();
  PluginFixture f(plugin::OptionList{{"state_file", state}});
  const auto node = f.pki.enroll("acme");
  const auto stranger = f.pki.enroll("acme");
  const std::string good = testing::signed_manifest(*node, testing::example_content(*node, f.now));
  FakeClient& c = f.connect_node(*node);
  ASSERT_EQ(f.publish(c, topic(node->node_id, "announce"), good, true), Verdict::kAllow);
  f.restart();

  FakeClient& agent = f.connect_agent("claude", f.pki.token("claude", "acme", {"devices:read"}, f.now / 1000 + 600));
  EXPECT_EQ(f.check(agent, kAclRead, topic(node->node_id, "announce")), Verdict::kDeny)
      << "not shown before it is re-verified";

  auto delivery = [&](const std::string& node_id, const std::string& payload) {
    const FakeClient source{node_id, node_id, "", 0};
    return f.plugin->on_acl_check(source.view(), {kAclWrite, topic(node_id, "announce"), payload, true});
  };
  auto cleared = [&](const std::string& node_id) {
    const auto sent = f.broker.take(topic(node_id, "announce"));
    return sent.size() == 1 && sent[0].payload.empty() && sent[0].retain;
  };
  EXPECT_EQ(delivery(node->node_id, good), Verdict::kAllow);
  EXPECT_FALSE(cleared(node->node_id));
  EXPECT_EQ(f.check(agent, kAclRead, topic(node->node_id, "announce")), Verdict::kAllow);

  // Planted: a manifest of a node the state file does not know.
  const std::string planted = testing::signed_manifest(*stranger, testing::example_content(*stranger, f.now));
  EXPECT_EQ(delivery(stranger->node_id, planted), Verdict::kDeny);
  EXPECT_TRUE(cleared(stranger->node_id));
  EXPECT_EQ(f.plugin->parts().counters.restored_cleared.load(), 1u);
  EXPECT_NE(f.audit_log().find("restored announce refused"), std::string::npos);

  // Tampered on disk, found by the waker's scan and handled on the tick.
  std::string tampered = good;
  tampered.replace(tampered.find("\"max_concurrency\":4"), 19, "\"max_concurrency\":5");
  f.plugin->accept_scanned(topic(node->node_id, "announce"), tampered);
  f.plugin->on_tick();
  EXPECT_TRUE(cleared(node->node_id));
  std::remove(state.c_str());
}

TEST(RestoredStatus, OfAnUnknownNodeIsRemovedOfAKnownOneKept) {
  PluginFixture f;
  const auto node = f.pki.enroll("acme");
  FakeClient& c = f.connect_node(*node);
  ASSERT_EQ(f.check(c, kAclSubscribe, topic(node->node_id, "cmd")), Verdict::kAllow);
  const std::string unknown = "01hzx9k3m4p7q8r9s0t1v2w3xy";
  const FakeClient broker_origin{"", "", "", 0};  // what a restored plugin publish carries
  f.broker.published.clear();
  EXPECT_EQ(f.plugin->on_acl_check(broker_origin.view(), {kAclWrite, topic(unknown, "status"), "{}", true}),
            Verdict::kDeny);
  const auto cleared = f.broker.take(topic(unknown, "status"));
  ASSERT_EQ(cleared.size(), 1u);
  EXPECT_TRUE(cleared[0].payload.empty() && cleared[0].retain);
  EXPECT_EQ(f.plugin->on_acl_check(broker_origin.view(), {kAclWrite, topic(node->node_id, "status"), "{}", true}),
            Verdict::kAllow);
}

}  // namespace
}  // namespace fleetmcp::plugin
