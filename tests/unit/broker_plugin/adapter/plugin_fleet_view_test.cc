// The production FleetView over the real plugin core (FleetPlugin over the recording fake broker
// of tests/support/plugin_fake_broker.h): what the HTTP front would see and do through it.
#include <gtest/gtest.h>

#include <filesystem>

#include "broker_plugin/adapter/plugin_fleet_view.h"
#include "tests/support/plugin_fake_broker.h"

namespace fleetmcp::http {
namespace {

using fleetmcp::testing::FakeClient;
using fleetmcp::testing::PluginFixture;

using fleetmcp::testing::topic;

class PluginViewTest : public ::testing::Test {
 protected:
  PluginViewTest() : node(f.pki.enroll("acme")) {}

  void SetUp() override {
    view.set_change_listener([this] { ++changes; });
    device = &f.connect_node(*node);
    const auto manifest = fleetmcp::testing::signed_manifest(*node, fleetmcp::testing::example_content(*node, f.now));
    ASSERT_EQ(f.publish(*device, topic(node->node_id, "announce"), manifest, true), plugin::Verdict::kAllow);
    view.on_tick(f.now, true);
    f.plugin->set_observer(&view);  // as plugin_entry.cc does: the core now names what changes
  }
  void TearDown() override { f.plugin->set_observer(nullptr); }

  PluginFixture f;
  std::shared_ptr<fleetmcp::testing::TestNode> node;
  PluginFleetView view{*f.plugin, SchemaRegistry::load(std::string(FLEETMCP_SOURCE_DIR) + "/schemas")};
  FakeClient* device = nullptr;
  int changes = 0;
};

TEST_F(PluginViewTest, TheSnapshotShowsTheTenantsVerifiedTools) {
  const auto snap = view.snapshot();
  std::vector<std::string> names;
  for (const FleetTool* t : snap->tools("acme")) names.push_back(t->name.dotted());
  EXPECT_EQ(names, (std::vector<std::string>{"sys." + node->node_id + ".metrics.snapshot",
                                             "sys." + node->node_id + ".metrics.subscribe",
                                             "sysecho." + node->node_id + ".echo.invoke"}));
  EXPECT_TRUE(snap->tools("other").empty());
  EXPECT_EQ(snap->node("acme", node->node_id)->state, NodeState::kOnline);
  EXPECT_EQ(changes, 1);
  view.on_tick(f.now + 1000);  // nothing changed: no new snapshot, no notice
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(view.snapshot(), snap);
}

TEST_F(PluginViewTest, ACallGoesThroughTheCoreToTheNodeAndBack) {
  std::optional<CallResult> outcome;
  view.call(CallRequest{"claude", "acme", node->node_id, "echo", "invoke", "sysecho." + node->node_id + ".echo.invoke",
                        R"({"message":"ping"})"},
            [&](CallResult r) { outcome.emplace(std::move(r)); });
  EXPECT_FALSE(outcome);
  f.plugin->on_tick();
  const auto cmds = f.broker.take(topic(node->node_id, "cmd"));
  ASSERT_EQ(cmds.size(), 1u);
  const auto cmd = json::parse_strict(cmds[0].payload).value();
  const std::string ack = R"({"type":"cmd_ack","msg_id":")" + new_msg_id() + R"(","in_reply_to":")" +
                          std::string(*json::get_string(cmd, "msg_id")) +
                          R"(","payload":{"ok":true,"result":{"message":"ping","received_at_ms":)" + std::to_string(f.now) +
                          R"(,"node_id":")" + node->node_id + R"("}}})";
  f.publish(*device, topic(node->node_id, "cmd_ack"), ack, false);
  ASSERT_TRUE(outcome);
  ASSERT_TRUE(outcome->ok()) << outcome->error().message;
  EXPECT_EQ(*json::get_string(json::parse_strict(**outcome).value(), "message"), "ping");
}

// The front keeps no deadline of its own (fleet_view.h): the core must answer a call the node never
// acknowledges, with E_DEADLINE_EXCEEDED, at the gateway deadline (docs/protocol.md §4).
TEST_F(PluginViewTest, TheCoreAnswersACallTheNodeNeverAcknowledgesAtTheDeadline) {
  std::optional<CallResult> outcome;
  view.call(CallRequest{"claude", "acme", node->node_id, "echo", "invoke", "sysecho." + node->node_id + ".echo.invoke",
                        R"({"message":"ping"})"},
            [&](CallResult r) { outcome.emplace(std::move(r)); });
  f.plugin->on_tick();
  ASSERT_EQ(f.broker.take(topic(node->node_id, "cmd")).size(), 1u);  // sent; the node stays silent
  f.now += 4999;
  f.plugin->on_tick();
  EXPECT_FALSE(outcome);
  f.now += 1;  // max(5000, deadline_ms_default 2000 + 1000) after the dispatch
  f.plugin->on_tick();
  ASSERT_TRUE(outcome);
  EXPECT_FALSE(outcome->ok());
  EXPECT_EQ(outcome->error().code, ErrorCode::kDeadlineExceeded);
}

TEST_F(PluginViewTest, OfflineKeepsTheToolsAndExpiryRemovesThem) {
  f.plugin->on_disconnect(device->view());
  view.on_tick(f.now + 1000);
  auto snap = view.snapshot();
  EXPECT_EQ(snap->node("acme", node->node_id)->state, NodeState::kOffline);
  EXPECT_EQ(snap->tools("acme").size(), 3u);
  EXPECT_EQ(changes, 2);
  f.now += 3'600'000;
  f.plugin->on_tick();
  view.on_tick(f.now);
  snap = view.snapshot();
  EXPECT_EQ(snap->node("acme", node->node_id)->state, NodeState::kExpired);
  EXPECT_TRUE(snap->tools("acme").empty());
}

TEST_F(PluginViewTest, TelemetryReachesWatchersUntilTheyLetGo) {
  std::vector<std::string> samples;
  int offline = 0;
  auto watch = view.watch_telemetry(node->node_id, {[&](std::string_view s) { samples.emplace_back(s); }, [&] { ++offline; }});
  view.on_telemetry(node->node_id, "{\"n\":1}");
  view.on_telemetry("01hzx9k3m4p7q8r9s0t1v2w3x0", "{\"n\":2}");
  view.on_node_offline(node->node_id);
  watch.reset();
  view.on_telemetry(node->node_id, "{\"n\":3}");
  EXPECT_EQ(samples, (std::vector<std::string>{"{\"n\":1}"}));
  EXPECT_EQ(offline, 1);
}

TEST_F(PluginViewTest, RevokedTokenIdsAreSeen) {
  EXPECT_FALSE(view.token_revoked("01JD0000000000000000000000"));
  f.revoke("01jd0000000000000000000000");
  view.set_revocations(std::make_shared<const RevocationList>(RevocationList::load((f.dir() / "revoked.txt").string()).value()));
  EXPECT_TRUE(view.token_revoked("01JD0000000000000000000000"));
}

// Issue 34: the core loads plugin_opt_revocation_file once; the view starts from that list, so
// the file changing (or going) before the view is made changes nothing until a reload.
TEST(PluginViewRevocations, StartFromTheListTheCoreLoaded) {
  PluginFixture f;
  f.revoke("01jd0000000000000000000000");
  std::filesystem::remove(f.dir() / "revoked.txt");
  PluginFleetView view(*f.plugin, f.plugin->parts().schemas);
  EXPECT_TRUE(view.token_revoked("01jd0000000000000000000000"));
}

}  // namespace
}  // namespace fleetmcp::http

