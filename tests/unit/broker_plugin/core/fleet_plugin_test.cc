// FleetPlugin driven the way mosquitto drives it, over a recording fake broker: announces,
// rejected messages, status, expiry, revocation, restored announces and the command path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "broker_plugin/calls/control_api.h"
#include "common/base/json.h"
#include "tests/support/plugin_fake_broker.h"
#include "tests/support/broker_plugin/recording_observer.h"

namespace fleetmcp::plugin {
namespace {

using fleetmcp::testing::RecordingObserver;

using namespace fleetmcp::testing;  // the fake broker, its fixture and test nodes

class FleetPluginTest : public ::testing::Test {
 protected:
  FleetPluginTest() : node(f.pki.enroll("acme")) {}

  std::string manifest(int64_t issued_at_ms, int64_t ttl_ms = 3'600'000) {
    return testing::signed_manifest(*node, testing::example_content(*node, issued_at_ms, ttl_ms));
  }
  Verdict announce(const FakeClient& c, const std::string& payload, bool retain = true) {
    return f.publish(c, topic(node->node_id, "announce"), payload, retain);
  }
  // The code of the single rejected message sent to `client_id` since the last call.
  std::string rejected_code(const std::string& client_id) {
    const auto sent = f.broker.take(topic(node->node_id, "rejected"));
    if (sent.size() != 1) return "messages: " + std::to_string(sent.size());
    EXPECT_EQ(sent[0].client_id, client_id);
    EXPECT_EQ(sent[0].qos, 1);
    EXPECT_FALSE(sent[0].retain);
    const auto doc = parse(sent[0].payload);
    EXPECT_EQ(json::get_string(doc, "etag").value_or("").size(), 64u);
    return std::string(json::get_string(doc, "code").value_or(""));
  }
  std::string last_status_state() {
    const auto sent = f.broker.take(topic(node->node_id, "status"));
    if (sent.empty()) return "none";
    EXPECT_TRUE(sent.back().retain);
    EXPECT_TRUE(sent.back().client_id.empty()) << "status goes through the subscriptions";
    return std::string(json::get_string(parse(sent.back().payload), "state").value_or(""));
  }

  PluginFixture f;
  std::shared_ptr<TestNode> node;
};

TEST_F(FleetPluginTest, AValidAnnounceIsAcceptedAndTheNodeGoesOnline) {
  FakeClient& c = f.connect_node(*node);
  EXPECT_EQ(announce(c, manifest(f.now)), Verdict::kAllow);
  EXPECT_TRUE(f.broker.take(topic(node->node_id, "rejected")).empty());
  const auto status = f.broker.take(topic(node->node_id, "status"));
  ASSERT_FALSE(status.empty());
  const auto doc = parse(status.back().payload);
  EXPECT_EQ(json::get_string(doc, "state"), "online");
  EXPECT_EQ(json::get_int64(doc, "expires_at_ms"), f.now + 3'600'000);
  const NodeRecord* record = f.plugin->parts().registry.find(node->node_id);
  ASSERT_NE(record, nullptr);
  EXPECT_TRUE(record->manifest_fresh(f.now));
  EXPECT_EQ(record->tenant, "acme");
  EXPECT_EQ(f.plugin->parts().counters.announces_accepted.load(), 1u);
}

TEST_F(FleetPluginTest, ARefusedAnnounceIsExplainedCountedAuditedAndKeepsThePreviousOne) {
  FakeClient& c = f.connect_node(*node);
  ASSERT_EQ(announce(c, manifest(f.now)), Verdict::kAllow);
  const std::string before = f.plugin->parts().registry.find(node->node_id)->manifest->etag;
  std::string tampered = manifest(f.now + 1);
  tampered.replace(tampered.find("\"rate_limit_rps\":10"), 19, "\"rate_limit_rps\":11");
  EXPECT_EQ(announce(c, tampered), Verdict::kDeny);
  EXPECT_EQ(rejected_code(c.id), "E_ATTESTATION_FAILED");
  EXPECT_EQ(f.plugin->parts().registry.find(node->node_id)->manifest->etag, before);
  EXPECT_EQ(f.plugin->parts().counters.announces_refused.load(), 1u);
  EXPECT_NE(f.audit_log().find(R"("decision":"refuse","code":"E_ATTESTATION_FAILED")"), std::string::npos);
}

TEST_F(FleetPluginTest, AKnownEtagCostsALookup) {
  FakeClient& c = f.connect_node(*node);
  const std::string m = manifest(f.now);
  ASSERT_EQ(announce(c, m), Verdict::kAllow);
  const auto hits = f.plugin->parts().counters.announce_cache_hits.load();
  ASSERT_EQ(announce(c, m), Verdict::kAllow);
  EXPECT_EQ(f.plugin->parts().counters.announce_cache_hits.load(), hits + 1);
  EXPECT_EQ(last_status_state(), "online");
  EXPECT_EQ(last_status_state(), "none") << "the same etag publishes no new status";
}

// Found by bench/soak.sh: every refresh left its verdict and manifest summary in the cache, so
// the broker grew by ~1.5 KiB per re-announce until the cache filled (65536 entries).
TEST_F(FleetPluginTest, RefreshesAndDeregistrationLeaveNoVerdictsBehind) {
  FakeClient& c = f.connect_node(*node);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(announce(c, manifest(f.now + i)), Verdict::kAllow) << i;
  EXPECT_EQ(f.plugin->parts().counters.announces_accepted.load(), 20u);
  EXPECT_EQ(f.plugin->load().cached_announce_verdicts, 1u) << "only the current manifest's verdict is kept";
  const auto hits = f.plugin->parts().counters.announce_cache_hits.load();
  ASSERT_EQ(announce(c, manifest(f.now + 19)), Verdict::kAllow);
  EXPECT_EQ(f.plugin->parts().counters.announce_cache_hits.load(), hits + 1) << "the current one is still a lookup";
  ASSERT_EQ(announce(c, ""), Verdict::kAllow);
  EXPECT_EQ(f.plugin->load().cached_announce_verdicts, 0u) << "deregistration forgets it";
}

// Issue 34: docs/protocol.md §6.1's checks run once per announce, in its WRITE check; MESSAGE
// commits with that verdict (pending_verdict.h).
TEST_F(FleetPluginTest, AnAnnounceIsVerifiedOnceFromItsCheckToItsCommit) {
  FakeClient& c = f.connect_node(*node);
  const std::string m = manifest(f.now);
  const uint64_t before = f.plugin->load().announce_verifications;
  ASSERT_EQ(announce(c, m), Verdict::kAllow);
  EXPECT_EQ(f.plugin->load().announce_verifications, before + 1);
  ASSERT_EQ(announce(c, m), Verdict::kAllow);
  EXPECT_EQ(f.plugin->load().announce_verifications, before + 2) << "a re-announce is one verification too";
  EXPECT_EQ(f.plugin->parts().counters.announces_accepted.load(), 2u);
}

// ... but only for the bytes it was reached on.
TEST_F(FleetPluginTest, AVerdictIsNotLentToOtherBytes) {
  FakeClient& c = f.connect_node(*node);
  const std::string announce_topic = topic(node->node_id, "announce");
  std::string tampered = manifest(f.now + 1);
  tampered.replace(tampered.find("\"rate_limit_rps\":10"), 19, "\"rate_limit_rps\":11");
  ASSERT_EQ(f.check(c, kAclWrite, announce_topic, manifest(f.now), true), Verdict::kAllow);
  // Another plugin's MESSAGE callback replaced the payload after the check: refused, so the broker
  // does not retain it, and the node is told why.
  EXPECT_EQ(f.plugin->on_message(c.view(), {announce_topic, tampered, true}), Verdict::kDeny);
  EXPECT_EQ(f.plugin->parts().registry.find(node->node_id)->manifest, nullptr);
  EXPECT_EQ(f.plugin->parts().counters.announces_accepted.load(), 0u);
  EXPECT_EQ(rejected_code(c.id), "E_ATTESTATION_FAILED");
}

// ... and not past the loop turn of its publish.
TEST_F(FleetPluginTest, ACheckWhoseMessageNeverCameLendsNothingAfterTheTick) {
  FakeClient& c = f.connect_node(*node);
  const std::string announce_topic = topic(node->node_id, "announce");
  const std::string m = manifest(f.now);
  ASSERT_EQ(f.check(c, kAclWrite, announce_topic, m, true), Verdict::kAllow);
  f.plugin->on_tick();
  const uint64_t before = f.plugin->load().announce_verifications;
  f.plugin->on_message(c.view(), {announce_topic, m, true});
  EXPECT_EQ(f.plugin->load().announce_verifications, before + 1) << "verified again";
  EXPECT_EQ(f.plugin->parts().counters.announces_accepted.load(), 1u);
}

TEST_F(FleetPluginTest, AnOlderManifestIsAReplay) {
  FakeClient& c = f.connect_node(*node);
  const std::string old_one = manifest(f.now - 10'000);
  ASSERT_EQ(announce(c, manifest(f.now)), Verdict::kAllow);
  EXPECT_EQ(announce(c, old_one), Verdict::kDeny);
  EXPECT_EQ(rejected_code(c.id), "E_MANIFEST_INVALID");
}

TEST_F(FleetPluginTest, TheHardwareFingerprintIsPinnedToTheCertificate) {
  FakeClient& c = f.connect_node(*node);
  ASSERT_EQ(announce(c, manifest(f.now)), Verdict::kAllow);
  auto content = testing::example_content(*node, f.now + 1);
  content.hw_sources = {{"machine_id", "another-board"}};
  EXPECT_EQ(announce(c, testing::signed_manifest(*node, content)), Verdict::kDeny);
  EXPECT_EQ(rejected_code(c.id), "E_ATTESTATION_FAILED");
}

TEST_F(FleetPluginTest, NonRetainedAnnouncesAndWillsOnTheAnnounceTopicAreRefused) {
  FakeClient& c = f.connect_node(*node);
  EXPECT_EQ(announce(c, manifest(f.now), /*retain=*/false), Verdict::kDeny);
  EXPECT_EQ(rejected_code(c.id), "E_MANIFEST_INVALID");
  ASSERT_EQ(f.check(c, kAclSubscribe, topic(node->node_id, "cmd")), Verdict::kAllow);
  f.plugin->on_disconnect(c.view());
  f.now += 1000;  // a refusal of the same kind within the second is counted in the next line only
  EXPECT_EQ(f.check(c, kAclWrite, topic(node->node_id, "announce"), manifest(f.now), true), Verdict::kDeny);
  EXPECT_EQ(rejected_code(c.id), "E_MANIFEST_INVALID");
  EXPECT_NE(f.audit_log().find("a Will on the announce topic is refused"), std::string::npos);
}

TEST_F(FleetPluginTest, ANodeCannotAnnounceForAnother) {
  const auto other = f.pki.enroll("acme");
  FakeClient& c = f.connect_node(*node);
  EXPECT_EQ(f.publish(c, topic(other->node_id, "announce"), manifest(f.now), true), Verdict::kDeny);
  EXPECT_EQ(rejected_code(c.id), "E_ATTESTATION_FAILED");
}

TEST_F(FleetPluginTest, ExpiredAnnouncesAreHiddenAtOnceAndClearedByTheSweep) {
  FakeClient& c = f.connect_node(*node);
  ASSERT_EQ(announce(c, manifest(f.now, 1000)), Verdict::kAllow);
  bool ok = false;
  FakeClient& agent = f.connect_agent("claude", f.pki.token("claude", "acme", {"devices:read"}, f.now / 1000 + 600), &ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(f.check(agent, kAclRead, topic(node->node_id, "announce")), Verdict::kAllow);
  f.now += 1000;
  EXPECT_EQ(f.check(agent, kAclRead, topic(node->node_id, "announce")), Verdict::kDeny) << "before the sweep";
  f.broker.published.clear();
  f.plugin->on_tick();
  const auto cleared = f.broker.take(topic(node->node_id, "announce"));
  ASSERT_EQ(cleared.size(), 1u);
  EXPECT_TRUE(cleared[0].payload.empty());
  EXPECT_TRUE(cleared[0].retain);
  EXPECT_EQ(last_status_state(), "expired");
  EXPECT_EQ(f.check(agent, kAclRead, topic(node->node_id, "announce"), ""), Verdict::kAllow)
      << "the clearing itself reaches subscribers";
  ASSERT_EQ(announce(c, manifest(f.now)), Verdict::kAllow);
  EXPECT_EQ(last_status_state(), "online") << "a fresh announce revives it";
}

TEST_F(FleetPluginTest, RevocationKicksClearsAndMarksTheNode) {
  FakeClient& c = f.connect_node(*node);
  ASSERT_EQ(announce(c, manifest(f.now)), Verdict::kAllow);
  f.broker.published.clear();
  f.revoke(node->node_id);
  const auto cleared = f.broker.take(topic(node->node_id, "announce"));
  ASSERT_EQ(cleared.size(), 1u);
  EXPECT_TRUE(cleared[0].payload.empty());
  EXPECT_EQ(last_status_state(), "revoked");
  EXPECT_EQ(f.check(c, kAclSubscribe, topic(node->node_id, "cmd")), Verdict::kDeny);
  f.plugin->on_tick();
  f.plugin->on_tick();
  f.plugin->on_tick();
  EXPECT_EQ(f.broker.kicked, std::vector<std::string>{node->node_id});
}

TEST_F(FleetPluginTest, TheObserverHearsTicksOwnTelemetryAndEveryWayANodeGoesAway) {
  RecordingObserver seen;
  f.plugin->set_observer(&seen);
  FakeClient& c = f.connect_node(*node);
  ASSERT_EQ(announce(c, manifest(f.now, 1000)), Verdict::kAllow);
  EXPECT_TRUE(seen.changed_since(node->node_id)) << "connect and announce";
  f.plugin->on_tick();
  EXPECT_EQ(seen.ticks, 1);
  seen.changed.clear();  // the first tick republishes every node's status
  f.plugin->on_tick();
  EXPECT_TRUE(seen.changed.empty()) << "a tick with nothing to do changes nothing";

  f.publish(c, topic(node->node_id, "telemetry"), R"({"cpu":1})", false);
  const auto other = f.pki.enroll("acme");
  FakeClient& impostor = f.connect_node(*other);
  f.publish(impostor, topic(node->node_id, "telemetry"), R"({"cpu":2})", false);
  EXPECT_EQ(seen.telemetry, std::vector<std::string>{node->node_id + R"( {"cpu":1})"})
      << "only the node's own telemetry reaches agents";

  f.now += 1000;
  f.plugin->on_tick();
  EXPECT_EQ(seen.offline, std::vector<std::string>{node->node_id}) << "expiry";
  EXPECT_TRUE(seen.changed_since(node->node_id)) << "expiry";
  ASSERT_EQ(announce(c, manifest(f.now)), Verdict::kAllow);
  EXPECT_TRUE(seen.changed_since(node->node_id)) << "a new manifest";
  f.plugin->on_disconnect(c.view());
  EXPECT_EQ(seen.offline.size(), 2u) << "session end";
  EXPECT_TRUE(seen.changed_since(node->node_id)) << "session end";
  f.revoke(node->node_id);
  EXPECT_EQ(seen.offline.size(), 3u) << "revocation";
  EXPECT_TRUE(seen.changed_since(node->node_id)) << "revocation";
  EXPECT_EQ(seen.reloads, 1);
  f.plugin->set_observer(nullptr);
}

TEST_F(FleetPluginTest, ARevokedNodeIsToldWhyWhenItAnnounces) {
  f.revoke(node->node_id);
  FakeClient& c = f.connect_node(*node);
  EXPECT_EQ(announce(c, manifest(f.now)), Verdict::kDeny);
  EXPECT_EQ(rejected_code(c.id), "E_ATTESTATION_FAILED");
  EXPECT_EQ(f.check(c, kAclSubscribe, topic(node->node_id, "rejected")), Verdict::kDeny);
}

TEST_F(FleetPluginTest, AgentsReadOnlyTheirTenant) {
  FakeClient& c = f.connect_node(*node);
  ASSERT_EQ(f.check(c, kAclSubscribe, topic(node->node_id, "cmd")), Verdict::kAllow);
  FakeClient& same = f.connect_agent("claude", f.pki.token("claude", "acme", {"devices:read"}, f.now / 1000 + 600));
  FakeClient& other = f.connect_agent("eve", f.pki.token("eve", "other", {"devices:read"}, f.now / 1000 + 600));
  EXPECT_EQ(f.check(same, kAclRead, topic(node->node_id, "telemetry")), Verdict::kAllow);
  EXPECT_EQ(f.check(other, kAclRead, topic(node->node_id, "telemetry")), Verdict::kDeny);
  EXPECT_EQ(f.check(same, kAclSubscribe, "$devices/+/telemetry"), Verdict::kAllow);
  EXPECT_EQ(f.check(same, kAclSubscribe, "$devices/#"), Verdict::kDeny);
  EXPECT_EQ(f.check(same, kAclSubscribe, "$devices/not-a-node/status"), Verdict::kDeny);
  EXPECT_EQ(f.check(same, kAclWrite, "some/other/topic"), Verdict::kDefer);
}

TEST_F(FleetPluginTest, AnExpiredTokenLosesAccessAndItsConnection) {
  FakeClient& agent = f.connect_agent("claude", f.pki.token("claude", "acme", {"devices:read"}, f.now / 1000 + 2));
  EXPECT_EQ(f.check(agent, kAclSubscribe, "$devices/+/status"), Verdict::kAllow);
  f.now += 3000;
  EXPECT_EQ(f.check(agent, kAclSubscribe, "$devices/+/status"), Verdict::kDeny);
  for (int i = 0; i < 3; ++i) f.plugin->on_tick();
  EXPECT_EQ(f.broker.kicked, std::vector<std::string>{"claude-client"});
}

TEST_F(FleetPluginTest, AKickMissesANewConnectionUnderTheSameClientId) {
  FakeClient& agent = f.connect_agent("claude", f.pki.token("claude", "acme", {"devices:read"}, f.now / 1000 + 2));
  f.now += 3000;
  EXPECT_EQ(f.check(agent, kAclSubscribe, "$devices/+/status"), Verdict::kDeny);  // queues the kick
  f.plugin->on_disconnect(agent.view());  // the client left on its own
  for (int i = 0; i < 3; ++i) f.plugin->on_tick();
  EXPECT_TRUE(f.broker.kicked.empty());
}

// --- issue 24: client ids are (kind, tenant, sub)'s; refusal lines are throttled ------------------

TEST_F(FleetPluginTest, TheSameSubOfAnotherTenantCannotTakeAClientIdOrTheSessionItLeft) {
  const std::string acme = f.pki.token("agent", "acme", {"devices:read"}, f.now / 1000 + 600);
  const std::string beta = f.pki.token("agent", "beta", {"devices:read"}, f.now / 1000 + 600);
  bool ok = false;
  FakeClient& holder = f.connect_client({.id = "agent", .username = "agent", .protocol = 4}, acme, &ok);
  ASSERT_TRUE(ok);
  f.connect_client({.id = "agent", .username = "agent", .protocol = 4}, beta, &ok);
  EXPECT_FALSE(ok) << "another tenant's agent";
  EXPECT_NE(f.audit_log().find("held by a connected client of another principal (agent agent of tenant acme)"),
            std::string::npos);
  f.plugin->on_disconnect(holder.view());  // MQTT 3.1.1 with clean session: nothing left behind
  f.connect_client({.id = "agent", .username = "agent", .protocol = 4}, beta, &ok);
  EXPECT_TRUE(ok);

  FakeClient& durable = f.connect_client({.id = "agent-q", .username = "agent", .protocol = 4, .clean_session = false},
                                         acme, &ok);
  ASSERT_TRUE(ok);
  f.plugin->on_disconnect(durable.view());
  f.connect_client({.id = "agent-q", .username = "agent", .protocol = 4}, beta, &ok);
  EXPECT_FALSE(ok) << "the session acme's agent left";
  f.connect_client({.id = "agent-q", .username = "agent", .protocol = 4, .clean_session = false}, acme, &ok);
  EXPECT_TRUE(ok) << "its owner resumes it";
}

TEST_F(FleetPluginTest, AnExplicitAutoIdIsAcceptedOnlyInMosquittosFormAndWhenNobodyHoldsIt) {
  const std::string acme = f.pki.token("agent", "acme", {"devices:read"}, f.now / 1000 + 600);
  const std::string beta = f.pki.token("agent", "beta", {"devices:read"}, f.now / 1000 + 600);
  const std::string assigned = "auto-5B0D6A51-0C3A-4E0C-9F55-2C1F8E0A7D11";
  bool ok = false;
  FakeClient& holder = f.connect_client({.id = assigned, .username = "agent"}, acme, &ok);  // MQTT 5
  ASSERT_TRUE(ok);
  f.plugin->on_disconnect(holder.view());  // an MQTT 5 session may outlive its client
  f.connect_client({.id = assigned, .username = "agent"}, beta, &ok);
  EXPECT_FALSE(ok);
  f.connect_client({.id = "auto-00000000-0000-0000-0000-00000000000a", .username = "agent"}, beta, &ok);
  EXPECT_FALSE(ok) << "mosquitto's ids are uppercase";
  f.connect_client({.id = "auto-00000000-0000-0000-0000-00000000000A", .username = "agent", .protocol = 4,
                    .clean_session = false},
                   beta, &ok);
  EXPECT_FALSE(ok) << "mosquitto never assigns an id to a 3.1.1 client without clean session";
}

TEST(ClientIdsAfterARestart, ARestoredSessionStaysItsOwners) {
  const std::string state = (std::filesystem::temp_directory_path() / ("fleetmcp-state-" + new_node_id())).string();
  PluginFixture f(plugin::OptionList{{"state_file", state}});
  const std::string acme = f.pki.token("agent", "acme", {"devices:read"}, f.now / 1000 + 600);
  const std::string beta = f.pki.token("agent", "beta", {"devices:read"}, f.now / 1000 + 600);
  bool ok = false;
  f.connect_client({.id = "agent-q", .username = "agent", .protocol = 4, .clean_session = false}, acme, &ok);
  ASSERT_TRUE(ok);
  f.restart();  // the client is gone; mosquitto restores its session
  f.connect_client({.id = "agent-q", .username = "agent", .protocol = 4}, beta, &ok);
  EXPECT_FALSE(ok);
  f.connect_client({.id = "agent-q", .username = "agent", .protocol = 4}, acme, &ok);
  EXPECT_TRUE(ok);
  std::remove(state.c_str());
}

TEST_F(FleetPluginTest, RefusalLinesAreThrottledPerKindAndCountedExactly) {
  FakeClient& c = f.connect_node(*node);
  const std::string stale = R"({"type":"cmd_ack","msg_id":"01JD0000000000000000000DEV",)"
                            R"("in_reply_to":"01JD0000000000000000000SRV","payload":{"ok":true,"result":{}}})";
  for (int i = 0; i < 5; ++i) f.publish(c, topic(node->node_id, "cmd_ack"), stale, false);
  f.publish(c, topic(node->node_id, "cmd_ack"), "{}", false);  // another kind: its own line
  const auto lines = [&](std::string_view needle) {
    size_t n = 0;
    for (size_t at = f.audit_log().find(needle); at != std::string::npos; at = f.audit_log().find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(lines("answers no call"), 1u);
  EXPECT_EQ(lines("does not match cmd_ack"), 1u);
  f.now += 999;
  f.publish(c, topic(node->node_id, "cmd_ack"), stale, false);
  EXPECT_EQ(lines("answers no call"), 1u);
  f.now += 1;
  f.publish(c, topic(node->node_id, "cmd_ack"), stale, false);
  EXPECT_EQ(lines("answers no call"), 2u);
  EXPECT_NE(f.audit_log().find("answers no call to this node; 5 more like this since the previous line"),
            std::string::npos);
  EXPECT_EQ(f.plugin->parts().counters.acks_unmatched.load(), 7u);
  EXPECT_EQ(f.plugin->parts().counters.acks_malformed.load(), 1u);
  EXPECT_EQ(f.plugin->parts().counters.audit_lines_throttled.load(), 5u);

  // Refused CONNECTs: made-up usernames are one kind. Accepts are never held back.
  for (int i = 0; i < 4; ++i) f.connect_agent("made-up-" + std::to_string(i), "not-a-token");
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 1u);
  EXPECT_EQ(f.plugin->parts().counters.auth_refused.load(), 4u);
  for (int i = 0; i < 3; ++i) f.connect_agent("claude", f.pki.token("claude", "acme", {"devices:read"}, f.now / 1000 + 600));
  EXPECT_EQ(lines("\"caller\":\"claude\",\"tenant\":\"acme\",\"decision\":\"accept\""), 3u);
}

TEST(RefusalLines, AnIntervalOfZeroWritesEveryOne) {
  PluginFixture f(plugin::OptionList{{"audit_refusal_interval_ms", "0"}});
  for (int i = 0; i < 3; ++i) f.connect_agent("made-up", "not-a-token");
  const std::string log = f.audit_log();
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 3);
  EXPECT_EQ(f.plugin->parts().counters.audit_lines_throttled.load(), 0u);
}

// Issue 33 item 8: a burst shorter than the interval is written when the interval ends (the tick),
// not when the next refusal of its kind comes, if ever.
TEST(RefusalLines, ABurstShorterThanTheIntervalIsWrittenWhenItEnds) {
  PluginFixture f;
  const auto lines = [&](std::string_view needle) {
    const std::string log = f.audit_log();
    size_t n = 0;
    for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) ++n;
    return n;
  };
  for (int i = 0; i < 4; ++i) f.connect_agent("made-up-" + std::to_string(i), "not-a-token");
  f.plugin->on_tick();
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 1u);  // the first; the other three are counted
  f.now += 999;
  f.plugin->on_tick();
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 1u);
  f.now += 1;  // the interval ends
  f.plugin->on_tick();
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 2u);
  // The burst's last refusal, standing for the two before it.
  EXPECT_EQ(lines("\"caller\":\"made-up-3\""), 1u);
  EXPECT_EQ(lines("; 2 more like this since the previous line"), 1u);
  f.now += 5000;
  f.plugin->on_tick();
  EXPECT_EQ(lines("\"decision\":\"refuse\""), 2u);  // written once
  EXPECT_EQ(f.plugin->parts().counters.auth_refused.load(), 4u);
}

// --- command path ----------------------------------------------------------------------------

class CommandPath : public FleetPluginTest {
 protected:
  void SetUp() override {
    device = &f.connect_node(*node);
    ASSERT_EQ(announce(*device, manifest(f.now)), Verdict::kAllow);
    ASSERT_EQ(f.check(*device, kAclSubscribe, topic(node->node_id, "cmd")), Verdict::kAllow);
    agent = &f.connect_agent("claude", f.pki.token("claude", "acme", {"devices:read", "tools:call:read_only"},
                                                   f.now / 1000 + 3600));
  }

  std::string echo_tool() const { return "sysecho." + node->node_id + ".echo.invoke"; }
  // Announces the node again with a physical_actuation GPIO capability `led` (get, set) besides echo.
  void announce_with_led(int max_concurrency) {
    auto content = testing::example_content(*node, f.now + 1);
    Capability led;
    led.cap_id = "led";
    led.kind = "gpio.pin";
    led.schema_ref = "mcp://schemas/gpio.pin@1.0.0";
    led.verbs = {"get", "set"};
    led.safety_class = SafetyClass::kPhysicalActuation;
    led.constraints = {10, max_concurrency, 2000};
    content.capabilities.push_back(led);
    ASSERT_EQ(announce(*device, testing::signed_manifest(*node, content)), Verdict::kAllow);
  }

  // Sends a call through the $CONTROL driver and runs the tick that dispatches it; returns the
  // cmd the node got (empty when none).
  std::string call(const std::string& tool, const std::string& arguments = R"({"message":"ping"})",
                   const FakeClient* caller = nullptr) {
    f.plugin->on_control((caller ? caller : agent)->view(),
                         R"({"id":"c1","tool":")" + tool + R"(","arguments":)" + arguments + "}");
    f.plugin->on_tick();
    const auto cmds = f.broker.take(topic(node->node_id, "cmd"));
    if (cmds.empty()) return "";
    EXPECT_EQ(cmds[0].client_id, node->node_id) << "straight to the node's client";
    return cmds[0].payload;
  }
  std::string ack(const std::string& cmd, const std::string& payload) {
    const auto doc = parse(cmd);
    return R"({"type":"cmd_ack","msg_id":")" + new_msg_id() + R"(","in_reply_to":")" +
           std::string(json::get_string(doc, "msg_id").value_or("")) + R"(","payload":)" + payload + "}";
  }
  std::string echo_result(const std::string& node_id) {
    return R"({"ok":true,"result":{"message":"ping","received_at_ms":)" + std::to_string(f.now) +
           R"(,"node_id":")" + node_id + R"("}})";
  }
  // The single answer the driver sent back to the agent.
  json::Document answer(const FakeClient* to = nullptr) {
    const auto sent = f.broker.take(std::string(kControlResponseTopic));
    EXPECT_EQ(sent.size(), 1u);
    if (sent.empty()) return parse("{}");
    EXPECT_EQ(sent[0].client_id, (to ? to : agent)->id);
    return parse(sent[0].payload);
  }
  static std::string code_of(const json::Document& a) {
    const json::Value* error = json::find(a, "error");
    return error ? std::string(json::get_string(*error, "code").value_or("")) : "ok";
  }

  FakeClient* device = nullptr;
  FakeClient* agent = nullptr;
};

TEST_F(CommandPath, ACallReachesTheNodeAndItsResultTheCaller) {
  const std::string cmd = call(echo_tool());
  ASSERT_FALSE(cmd.empty());
  const auto doc = parse(cmd);
  EXPECT_EQ(json::get_string(doc, "type"), "cmd");
  EXPECT_EQ(json::get_int64(doc, "deadline_ms"), 2000);
  EXPECT_EQ(json::get_string(doc["payload"], "tool"), echo_tool());
  EXPECT_EQ(json::get_string(doc["payload"]["arguments"], "message"), "ping");
  EXPECT_TRUE(is_msg_id(json::get_string(doc, "msg_id").value_or("")));
  EXPECT_EQ(f.publish(*device, topic(node->node_id, "cmd_ack"), ack(cmd, echo_result(node->node_id)), false),
            Verdict::kAllow);
  const auto a = answer();
  EXPECT_EQ(json::get_bool(a, "ok"), true);
  EXPECT_EQ(json::get_string(a["result"], "message"), "ping");
  EXPECT_EQ(json::get_string(a, "node_id"), node->node_id);
  EXPECT_EQ(f.plugin->load().pending_calls, 0u);
  EXPECT_NE(f.audit_log().find(R"("tool":")" + echo_tool() + R"(","node_id":")" + node->node_id +
                               R"(","decision":"ok")"),
            std::string::npos);
}

// Issue 17 item 8: the $CONTROL driver skips the HTTP front's two-phase confirmation and rate
// limits, so it refuses a verb that actuates, even for a token holding that scope.
TEST_F(CommandPath, TheControlDriverRefusesPhysicalActuation) {
  announce_with_led(1);
  FakeClient& operator_agent = f.connect_agent(
      "ops", f.pki.token("ops", "acme", {"tools:call:read_only", "tools:call:physical_actuation"}, f.now / 1000 + 3600));
  EXPECT_TRUE(call("gpio." + node->node_id + ".led.set", R"({"value":"high"})", &operator_agent).empty())
      << "no cmd may reach the node";
  const auto refused = answer(&operator_agent);
  EXPECT_EQ(code_of(refused), "E_SAFETY_DENIED");
  EXPECT_NE(json::get_string(refused["error"], "message").value_or("").find("two-phase"), std::string::npos);
  EXPECT_FALSE(call("gpio." + node->node_id + ".led.get", "{}", &operator_agent).empty()) << "a read still works";
}

TEST_F(CommandPath, TheGatewayDeadlineFailsTheCallAndALateAckIsDroppedAndAudited) {
  const std::string cmd = call(echo_tool());
  f.now += 4999;
  f.plugin->on_tick();
  EXPECT_TRUE(f.broker.take(std::string(kControlResponseTopic)).empty());
  f.now += 1;
  f.plugin->on_tick();
  EXPECT_EQ(code_of(answer()), "E_DEADLINE_EXCEEDED");
  f.publish(*device, topic(node->node_id, "cmd_ack"), ack(cmd, echo_result(node->node_id)), false);
  EXPECT_TRUE(f.broker.take(std::string(kControlResponseTopic)).empty());
  EXPECT_EQ(f.plugin->parts().counters.late_acks.load(), 1u);
  EXPECT_NE(f.audit_log().find("late cmd_ack"), std::string::npos);
}

// Issue 24: the cmd carries an MQTT 5 message expiry of the gateway deadline (whole seconds,
// rounded up), so the broker drops it once its caller has been answered.
TEST_F(CommandPath, TheCmdExpiresWithItsGatewayDeadline) {
  f.plugin->on_control(agent->view(), R"({"id":"c1","tool":")" + echo_tool() + R"(","arguments":{"message":"x"}})");
  f.plugin->on_tick();
  const auto cmds = f.broker.take(topic(node->node_id, "cmd"));
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_EQ(cmds[0].expiry_s, 5u) << "deadline_ms_default 2000: gateway deadline max(5000, 3000) ms";
  EXPECT_FALSE(cmds[0].retain);
  EXPECT_EQ(cmds[0].qos, 1);
}

// Issue 24: after a deadline a read may be retried as it is; a call that acts may have acted, so
// its caller is told the outcome is unknown and to read the state before retrying; a device that
// says it did not run the command (docs/protocol.md §4.3 step 5) lets the caller simply retry.
class DeadlineOfACallThatActs : public CommandPath {
 protected:
  void SetUp() override {
    CommandPath::SetUp();
    announce_with_led(4);
  }
  // Submits the call as the HTTP front does after its two-phase confirmation; returns its cmd.
  std::string submit(const std::string& verb, const std::string& arguments, std::optional<CallResult>* out) {
    CallRequest request;
    request.node_id = node->node_id;
    request.cap_id = "led";
    request.verb = verb;
    request.tool = "gpio." + node->node_id + ".led." + verb;
    request.arguments_json = arguments;
    request.caller = "ops";
    request.tenant = "acme";
    f.plugin->submit_call(std::move(request), [out](CallResult result) { out->emplace(std::move(result)); });
    f.plugin->on_tick();
    const auto cmds = f.broker.take(topic(node->node_id, "cmd"));
    return cmds.empty() ? "" : cmds[0].payload;
  }
  void expire() {
    f.now += 5000;
    f.plugin->on_tick();
  }
};

TEST_F(DeadlineOfACallThatActs, TheGatewaySaysTheOutcomeIsUnknownAndToReadTheStateFirst) {
  std::optional<CallResult> set;
  ASSERT_FALSE(submit("set", R"({"value":"high"})", &set).empty());
  std::optional<CallResult> get;
  ASSERT_FALSE(submit("get", "{}", &get).empty());
  expire();
  ASSERT_TRUE(set && get);
  EXPECT_EQ(set->error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_NE(set->error().message.find("the outcome is unknown"), std::string::npos) << set->error().message;
  EXPECT_NE(set->error().suggested_fix.find("read the current state first"), std::string::npos) << set->error().suggested_fix;
  EXPECT_EQ(get->error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(get->error().message.find("unknown"), std::string::npos) << "a read did nothing: " << get->error().message;
  EXPECT_NE(get->error().suggested_fix.find("retry later"), std::string::npos);
}

TEST_F(DeadlineOfACallThatActs, ADeviceDeadlineIsUnknownTooUnlessTheDeviceDidNotRunIt) {
  std::optional<CallResult> timed_out;
  const std::string cmd = submit("set", R"({"value":"high"})", &timed_out);
  f.publish(*device, topic(node->node_id, "cmd_ack"),
            ack(cmd, R"({"ok":false,"error":{"code":"E_DEADLINE_EXCEEDED","message":"the tool did not finish","suggested_fix":"x"}})"),
            false);
  ASSERT_TRUE(timed_out);
  EXPECT_EQ(timed_out->error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_NE(timed_out->error().message.find("the outcome is unknown"), std::string::npos) << timed_out->error().message;

  std::optional<CallResult> refused;
  const std::string late = submit("set", R"({"value":"high"})", &refused);
  f.publish(*device, topic(node->node_id, "cmd_ack"),
            ack(late, R"({"ok":false,"error":{"code":"E_DEADLINE_EXCEEDED","message":"not run: the cmd arrived at least 3000 ms after its deadline","suggested_fix":"x"}})"),
            false);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(refused->error().message, "the device received the command after its deadline and did not run it");
  EXPECT_EQ(refused->error().suggested_fix, "nothing was changed; retry the call if it is still wanted");
}

TEST_F(DeadlineOfACallThatActs, ALateAckSayingNotRunIsAuditedSo) {
  std::optional<CallResult> result;
  const std::string cmd = submit("set", R"({"value":"high"})", &result);
  expire();
  ASSERT_TRUE(result);
  ASSERT_EQ(result->error().code, ErrorCode::kDeadlineExceeded);
  f.publish(*device, topic(node->node_id, "cmd_ack"),
            ack(cmd, R"({"ok":false,"error":{"code":"E_DEADLINE_EXCEEDED","message":"not run: late","suggested_fix":"x"}})"),
            false);
  const std::string audit = f.audit_log();
  EXPECT_NE(audit.find(R"("decision":"drop","code":"E_DEADLINE_EXCEEDED","reason":"late cmd_ack for a call that already finished; the device did not run it)"),
            std::string::npos)
      << audit;
}

TEST_F(CommandPath, ANodeThatDropsFailsItsCallsAtOnce) {
  ASSERT_FALSE(call(echo_tool()).empty());
  f.plugin->on_disconnect(device->view());
  EXPECT_EQ(code_of(answer()), "E_NODE_OFFLINE");
  EXPECT_EQ(last_status_state(), "offline");
  EXPECT_TRUE(call(echo_tool()).empty());
  EXPECT_EQ(code_of(answer()), "E_NODE_OFFLINE") << "offline nodes fail at once";
}

TEST_F(CommandPath, ResultsAreCheckedAgainstTheOutputSchemaAndTheNode) {
  std::string cmd = call(echo_tool());
  f.publish(*device, topic(node->node_id, "cmd_ack"), ack(cmd, echo_result("01hzx9k3m4p7q8r9s0t1v2w3xy")), false);
  EXPECT_EQ(code_of(answer()), "E_ATTESTATION_FAILED");
  cmd = call(echo_tool());
  f.publish(*device, topic(node->node_id, "cmd_ack"), ack(cmd, R"({"ok":true,"result":{"message":"ping"}})"), false);
  EXPECT_EQ(code_of(answer()), "E_INTERNAL");
  cmd = call(echo_tool());
  f.publish(*device, topic(node->node_id, "cmd_ack"),
            ack(cmd, R"({"ok":false,"error":{"code":"E_RATE_LIMITED","message":"busy, says the device","suggested_fix":"x","retry_after_ms":250}})"),
            false);
  const auto a = answer();
  EXPECT_EQ(code_of(a), "E_RATE_LIMITED");
  EXPECT_EQ(json::get_int64(a["error"], "retry_after_ms"), 250);
  EXPECT_EQ(json::get_string(a["error"], "message"), "the device refused the call with E_RATE_LIMITED")
      << "device text never reaches the caller";
}

TEST_F(CommandPath, AnAckFromAnotherNodeDoesNotAnswerTheCall) {
  const auto other = f.pki.enroll("acme");
  FakeClient& impostor = f.connect_node(*other);
  const std::string cmd = call(echo_tool());
  f.publish(impostor, topic(other->node_id, "cmd_ack"), ack(cmd, echo_result(node->node_id)), false);
  EXPECT_TRUE(f.broker.take(std::string(kControlResponseTopic)).empty());
  EXPECT_EQ(f.plugin->load().pending_calls, 1u);
}

TEST_F(CommandPath, CallsAreRefusedBeforeDispatchWhenTheyCannotSucceed) {
  EXPECT_TRUE(call("sysecho." + node->node_id + ".echo.invoke", R"({"message":"é"})").empty());
  EXPECT_EQ(code_of(answer()), "E_MANIFEST_INVALID") << "arguments against the input schema (RFC-0005 8)";
  EXPECT_TRUE(call("sysecho." + node->node_id + ".nope.invoke").empty());
  EXPECT_EQ(code_of(answer()), "E_MANIFEST_NOT_FOUND");
  EXPECT_TRUE(call("sys." + node->node_id + ".metrics.set").empty());
  EXPECT_EQ(code_of(answer()), "E_VERB_UNSUPPORTED");
  EXPECT_TRUE(call("not a tool").empty());
  EXPECT_EQ(code_of(answer()), "E_BAD_REQUEST");
  FakeClient& stranger = f.connect_agent("eve", f.pki.token("eve", "other", {"tools:call:read_only"}, f.now / 1000 + 60));
  EXPECT_TRUE(call(echo_tool(), R"({"message":"ping"})", &stranger).empty());
  EXPECT_EQ(code_of(answer(&stranger)), "E_MANIFEST_NOT_FOUND") << "another tenant's node is not visible";
  FakeClient& reader = f.connect_agent("ro", f.pki.token("ro", "acme", {"devices:read"}, f.now / 1000 + 60));
  EXPECT_TRUE(call(echo_tool(), R"({"message":"ping"})", &reader).empty());
  EXPECT_EQ(code_of(answer(&reader)), "E_SAFETY_DENIED");
}

// The core takes the tool's canonical name from the request (the front resolved it) and puts it
// into the cmd as it is, after checking the capability is still of that kind (issue 34 step 3).
TEST_F(CommandPath, TheCmdCarriesTheResolvedNameAndACapabilityOfAnotherKindIsNotCalled) {
  const auto submit = [&](const std::string& tool, std::string* code) {
    CallRequest request;
    request.node_id = node->node_id;
    request.cap_id = "echo";
    request.verb = "invoke";
    request.tool = tool;
    request.arguments_json = R"({"message":"ping"})";
    request.caller = "claude";
    request.tenant = "acme";
    f.plugin->submit_call(std::move(request), [code](CallResult result) {
      *code = result ? "ok" : std::string(error_code_name(result.error().code));
    });
    f.plugin->on_tick();
    return f.broker.take(topic(node->node_id, "cmd"));
  };
  std::string code;
  const auto cmds = submit(echo_tool(), &code);
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_EQ(json::get_string(parse(cmds[0].payload)["payload"], "tool"), echo_tool());
  // The front resolved a gpio.pin tool "echo"; the node's capability echo is a system.echo.
  EXPECT_TRUE(submit("gpio." + node->node_id + ".echo.invoke", &code).empty());
  EXPECT_EQ(code, "E_MANIFEST_NOT_FOUND");
}

// The HTTP front validates arguments in its gate and the core trusts it by the call's origin; the
// $CONTROL driver's calls are validated by the core.
TEST_F(CommandPath, ArgumentsAreValidatedOnceWhereverTheCallComesFrom) {
  const std::string invalid = R"({"message":"é"})";  // outside the echo input schema
  CallRequest request;
  request.node_id = node->node_id;
  request.cap_id = "echo";
  request.verb = "invoke";
  request.tool = echo_tool();
  request.arguments_json = invalid;
  request.caller = "claude";
  request.tenant = "acme";
  std::string code;
  f.plugin->submit_call(std::move(request), [&code](CallResult result) {
    code = result ? "ok" : std::string(error_code_name(result.error().code));
  });
  f.plugin->on_tick();
  const auto cmds = f.broker.take(topic(node->node_id, "cmd"));
  ASSERT_EQ(cmds.size(), 1u) << "arguments the front validated are not checked again";
  EXPECT_EQ(json::get_string(parse(cmds[0].payload)["payload"]["arguments"], "message"), "é")
      << "the arguments go out as the submitter serialised them";
  EXPECT_EQ(code, "") << "the call is pending on the node";

  EXPECT_TRUE(call(echo_tool(), invalid).empty());
  EXPECT_EQ(code_of(answer()), "E_MANIFEST_INVALID") << "the $CONTROL driver's arguments are checked before dispatch";
}

// The core trusts the front by the call's origin, not by scope bits: a $CONTROL call still needs
// its agent's own scope, and the name the driver was given must be the tool's, kind_short included.
TEST_F(CommandPath, TheDriverChecksScopeAndTheNameItWasGiven) {
  FakeClient& reader = f.connect_agent("ro", f.pki.token("ro", "acme", {"devices:read"}, f.now / 1000 + 60));
  EXPECT_TRUE(call(echo_tool(), R"({"message":"ping"})", &reader).empty());
  EXPECT_EQ(code_of(answer(&reader)), "E_SAFETY_DENIED");
  EXPECT_TRUE(call("sysecho." + node->node_id + ".echo.get").empty());
  EXPECT_EQ(code_of(answer()), "E_VERB_UNSUPPORTED");
  EXPECT_TRUE(call("gpio." + node->node_id + ".echo.invoke", R"({"message":"ping"})").empty());
  EXPECT_EQ(code_of(answer()), "E_MANIFEST_NOT_FOUND") << "the name's kind_short must be its capability's kind";
}

TEST_F(CommandPath, TheDriverAnswersCountersAndNodes) {
  f.plugin->on_control(agent->view(), R"({"id":"n","command":"nodes"})");
  const auto nodes = answer();
  ASSERT_TRUE(nodes["nodes"].IsArray());
  ASSERT_EQ(nodes["nodes"].Size(), 1u);
  EXPECT_EQ(json::get_string(nodes["nodes"][0], "state"), "online");
  EXPECT_EQ(nodes["nodes"][0]["tools"].Size(), 3u);
  f.plugin->on_control(agent->view(), R"({"id":"k","command":"counters"})");
  EXPECT_EQ(json::get_int64(answer()["counters"], "announces_accepted"), 1);
  f.plugin->on_control(agent->view(), R"({"id":"x","command":"reboot"})");
  EXPECT_EQ(code_of(answer()), "E_BAD_REQUEST");
}

}  // namespace
}  // namespace fleetmcp::plugin
