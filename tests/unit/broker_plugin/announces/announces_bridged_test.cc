// FleetPlugin across a bridge between brokers (docs/protocol.md §12), driven as mosquitto drives it: this
// broker's own bridge delivers in MOSQ_EVT_MESSAGE without an ACL check (a client with no
// session), another broker's bridge connects as a client with a fleet:bridge token.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "broker_plugin/calls/control_api.h"
#include "common/base/json.h"
#include "common/ids/ulid.h"
#include "tests/support/plugin_fake_broker.h"

namespace fleetmcp::plugin {
namespace {

using namespace fleetmcp::testing;  // the fake broker, its fixture and test nodes

// The enrolled certificates a broker of a bridged fleet holds: <dir>/<node_id>/node.crt.
class EnrolledDir {
 public:
  EnrolledDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fleetmcp-enrolled.XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~EnrolledDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  void add(const TestNode& node) {
    std::filesystem::create_directories(path_ / node.node_id);
    std::ofstream(path_ / node.node_id / "node.crt") << node.certificate.to_pem();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

class Bridge : public ::testing::Test {
 protected:
  Bridge()
      : f({{"enrolled_certs_dir", enrolled.path()}}),
        remote(f.pki.enroll("acme")),
        agent(&f.connect_agent("claude", f.pki.token("claude", "acme", {"devices:read", "tools:call:read_only"},
                                                     f.now / 1000 + 3600))) {
    enrolled.add(*remote);
  }

  std::string manifest(const TestNode& node, int64_t issued_at_ms) {
    return testing::signed_manifest(node, testing::example_content(node, issued_at_ms));
  }
  // What this broker's own bridge delivers: MESSAGE only, from a client that never had an ACL check.
  Verdict bridged(const std::string& leaf, const std::string& payload, bool retain = false,
                  const TestNode* node = nullptr) {
    return f.plugin->on_message(bridge.view(), {topic((node ? node : remote.get())->node_id, leaf), payload, retain});
  }
  Verdict bridged_announce() { return bridged("announce", manifest(*remote, f.now), true); }
  std::string status(const std::string& state) {
    return R"({"node_id":")" + remote->node_id + R"(","state":")" + state + R"(","since_ms":1})";
  }
  std::string echo_tool() const { return "sysecho." + remote->node_id + ".echo.invoke"; }
  // A call through the $CONTROL driver and the tick that dispatches it: the cmds sent.
  std::vector<testing::Published> call() {
    f.plugin->on_control(agent->view(), R"({"id":"c1","tool":")" + echo_tool() + R"(","arguments":{"message":"ping"}})");
    f.plugin->on_tick();
    return f.broker.take(topic(remote->node_id, "cmd"));
  }
  std::string answer_code() {
    const auto sent = f.broker.take(std::string(kControlResponseTopic));
    if (sent.size() != 1) return "answers: " + std::to_string(sent.size());
    const auto doc = parse(sent[0].payload);
    const json::Value* error = json::find(doc, "error");
    return error ? std::string(json::get_string(*error, "code").value_or("")) : "ok";
  }
  std::string ack_for(const std::string& cmd) {
    return R"({"type":"cmd_ack","msg_id":")" + new_msg_id() + R"(","in_reply_to":")" +
           std::string(json::get_string(parse(cmd), "msg_id").value_or("")) +
           R"(","payload":{"ok":true,"result":{"message":"ping","received_at_ms":1763800000000,"node_id":")" +
           remote->node_id +
           R"("}}})";
  }

  EnrolledDir enrolled;
  PluginFixture f;
  std::shared_ptr<TestNode> remote;
  FakeClient bridge{"local.bridge-b-to-a", "bridge-b"};
  FakeClient* agent;
};

TEST_F(Bridge, AnAnnounceOfAnEnrolledNodeIsVerifiedAndTheNodeIsRemote) {
  EXPECT_EQ(bridged_announce(), Verdict::kAllow);
  const NodeRecord* node = f.plugin->parts().registry.find(remote->node_id);
  ASSERT_NE(node, nullptr);
  EXPECT_TRUE(node->remote);
  EXPECT_EQ(node->tenant, "acme") << "from the enrolled certificate's O=";
  EXPECT_TRUE(node->manifest_fresh(f.now));
  EXPECT_TRUE(f.broker.take(topic(remote->node_id, "status")).empty()) << "the owning plugin publishes its status";
  EXPECT_NE(f.audit_log().find("over a bridge"), std::string::npos);
  // Agents of the node's tenant read the bridged announce like a local one.
  EXPECT_EQ(f.check(*agent, kAclRead, topic(remote->node_id, "announce")), Verdict::kAllow);
  EXPECT_EQ(node->state(), NodeState::kOffline) << "not live until the owner's status says so";
}

TEST_F(Bridge, AnAnnounceIsRefusedWithoutAnEnrolledCertificateOrAValidSignature) {
  auto stranger = f.pki.enroll("acme");  // enrolled with the CA, but its certificate is not on this broker
  EXPECT_EQ(bridged("announce", manifest(*stranger, f.now), true, stranger.get()), Verdict::kDeny);
  EXPECT_NE(f.audit_log().find("no valid enrolled certificate of node " + stranger->node_id), std::string::npos);

  std::string tampered = manifest(*remote, f.now);
  tampered.replace(tampered.find("\"echo\""), 6, "\"ecko\"");
  EXPECT_EQ(bridged("announce", tampered, true), Verdict::kDeny);
  EXPECT_EQ(bridged("announce", manifest(*remote, f.now), false), Verdict::kDeny) << "announces are retained";
  EXPECT_EQ(f.plugin->parts().counters.bridged_refused.load(), 3u);
  EXPECT_EQ(f.plugin->parts().registry.find(remote->node_id), nullptr);
}

// Issue 17 item 8: the certificate remembered from an earlier announce is re-checked each time;
// once it has expired, a fresh, well-signed announce no longer verifies against it.
TEST_F(Bridge, ARememberedCertificateIsRecheckedForItsValidityPeriod) {
  ASSERT_EQ(bridged_announce(), Verdict::kAllow);
  f.now = remote->certificate.not_after_ms() + 1000;
  EXPECT_EQ(bridged_announce(), Verdict::kDeny);
  EXPECT_NE(f.audit_log().find("no valid enrolled certificate of node " + remote->node_id), std::string::npos)
      << f.audit_log();
}

TEST_F(Bridge, AnotherCaCertificateInTheEnrolledDirectoryIsIgnored) {
  testing::TestPki other;
  auto impostor = other.enroll("acme", {.node_id = remote->node_id});
  enrolled.add(*impostor);  // overwrites the real one
  EXPECT_EQ(bridged("announce", manifest(*impostor, f.now), true, impostor.get()), Verdict::kDeny);
}

TEST_F(Bridge, CallsReachARemoteNodeThroughTheBridgeAndItsAckAnswersThem) {
  ASSERT_EQ(bridged_announce(), Verdict::kAllow);
  EXPECT_TRUE(call().empty());
  EXPECT_EQ(answer_code(), "E_NODE_OFFLINE") << "no status from the owner yet";

  ASSERT_EQ(bridged("status", status("online"), true), Verdict::kAllow);
  EXPECT_EQ(f.plugin->parts().registry.find(remote->node_id)->state(), NodeState::kOnline);
  const auto cmds = call();
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_TRUE(cmds[0].client_id.empty()) << "routed through the subscriptions: the bridge's";
  EXPECT_EQ(bridged("cmd_ack", ack_for(cmds[0].payload)), Verdict::kAllow);
  EXPECT_EQ(answer_code(), "ok");
}

TEST_F(Bridge, TheOwnersOfflineStatusAndALostBridgeFailCallsAtOnce) {
  ASSERT_EQ(bridged_announce(), Verdict::kAllow);
  ASSERT_EQ(bridged("status", status("online"), true), Verdict::kAllow);
  ASSERT_EQ(call().size(), 1u);
  ASSERT_EQ(bridged("status", status("offline"), true), Verdict::kAllow);
  EXPECT_EQ(answer_code(), "E_NODE_OFFLINE");

  ASSERT_EQ(bridged("status", status("online"), true), Verdict::kAllow);
  ASSERT_EQ(call().size(), 1u);
  f.plugin->on_disconnect(bridge.view());
  EXPECT_EQ(answer_code(), "E_NODE_OFFLINE");
  EXPECT_EQ(f.plugin->parts().registry.find(remote->node_id)->state(), NodeState::kOffline);
  EXPECT_TRUE(f.broker.kicked.empty()) << "a bridge is never taken for a node";
}

TEST_F(Bridge, ItCannotSpeakForANodeConnectedHere) {
  FakeClient& local = f.connect_node(*remote);
  ASSERT_EQ(f.publish(local, topic(remote->node_id, "announce"), manifest(*remote, f.now), true), Verdict::kAllow);
  EXPECT_EQ(bridged("status", status("offline"), true), Verdict::kDeny);
  EXPECT_EQ(bridged_announce(), Verdict::kDeny);
  EXPECT_EQ(bridged("telemetry", "{}"), Verdict::kDeny);
  EXPECT_EQ(bridged("cmd_ack", "{}"), Verdict::kDeny);
  EXPECT_EQ(bridged("rejected", "{}"), Verdict::kDeny);
  EXPECT_FALSE(f.plugin->parts().registry.find(remote->node_id)->remote);
  EXPECT_EQ(f.plugin->parts().registry.find(remote->node_id)->state(), NodeState::kOnline);
}

TEST_F(Bridge, ANodeThatConnectsHereStopsBeingRemote) {
  ASSERT_EQ(bridged_announce(), Verdict::kAllow);
  ASSERT_EQ(bridged("status", status("online"), true), Verdict::kAllow);
  FakeClient& local = f.connect_node(*remote);
  ASSERT_EQ(f.publish(local, topic(remote->node_id, "announce"), manifest(*remote, f.now + 1), true), Verdict::kAllow);
  EXPECT_FALSE(f.plugin->parts().registry.find(remote->node_id)->remote);
  EXPECT_FALSE(f.broker.take(topic(remote->node_id, "status")).empty()) << "its status is this plugin's again";
}

TEST_F(Bridge, TheOwnersClearDeregistersTheRemoteNode) {
  ASSERT_EQ(bridged_announce(), Verdict::kAllow);
  ASSERT_EQ(bridged("announce", "", true), Verdict::kAllow);
  EXPECT_FALSE(f.plugin->parts().registry.find(remote->node_id)->manifest_fresh(f.now));
}

// --- the owning side: another broker's bridge as a client ------------------------------------

class BridgePrincipal : public Bridge {
 protected:
  // A bridge with its token and its certificate from `fleetctl pki bridge` (CN = sub, O = fleet:bridge).
  FakeClient& connect_bridge(const std::set<std::string, std::less<>>& scopes = {"fleet:bridge"},
                             bool* accepted = nullptr, const Certificate* certificate = nullptr) {
    const Certificate& cert = certificate != nullptr ? *certificate : bridge_certificate("bridge-b");
    return f.connect_agent("bridge-b", f.pki.token("bridge-b", "acme", scopes, f.now / 1000 + 3600), accepted, &cert);
  }
  const Certificate& bridge_certificate(const std::string& cn, const std::string& o = "fleet:bridge") {
    certificates_.push_back(f.pki.enroll(o, {.cn = cn}));
    return certificates_.back()->certificate;
  }
  std::vector<std::shared_ptr<TestNode>> certificates_;
};

// Issue 17 item 7: the token alone is not a bridge; its certificate must come with it.
TEST_F(BridgePrincipal, ATokenWithoutItsBridgeCertificateIsRefused) {
  bool accepted = true;
  f.connect_agent("bridge-b", f.pki.token("bridge-b", "acme", {"fleet:bridge"}, f.now / 1000 + 3600), &accepted);
  EXPECT_FALSE(accepted) << "token only";
  EXPECT_NE(f.audit_log().find("a bridge needs its client certificate (mutual TLS)"), std::string::npos);
  f.now += 1000;  // one refusal line of a kind per second (issue 24): this one gets its own
  connect_bridge({"fleet:bridge"}, &accepted, &bridge_certificate("bridge-c"));
  EXPECT_FALSE(accepted) << "another bridge's certificate";
  connect_bridge({"fleet:bridge"}, &accepted, &bridge_certificate("bridge-b", "acme"));
  EXPECT_FALSE(accepted) << "not O=fleet:bridge";
  EXPECT_NE(f.audit_log().find("the client certificate is not this bridge's"), std::string::npos);
  testing::TestPki other;
  auto foreign = other.enroll("fleet:bridge", {.cn = "bridge-b"});
  connect_bridge({"fleet:bridge"}, &accepted, &foreign->certificate);
  EXPECT_FALSE(accepted) << "another CA's";
  connect_bridge({"fleet:bridge"}, &accepted);
  EXPECT_TRUE(accepted) << "token and certificate";
  // An agent token needs no certificate.
  f.connect_agent("ops", f.pki.token("ops", "acme", {"devices:read"}, f.now / 1000 + 3600), &accepted);
  EXPECT_TRUE(accepted);
}

// Issue 17 item 7: a bridge's cmd reaches only a node connected to this broker.
TEST_F(BridgePrincipal, ItsCmdsReachOnlyNodesConnectedHere) {
  FakeClient& b = connect_bridge();
  EXPECT_EQ(f.check(b, kAclWrite, topic(remote->node_id, "cmd"), "{}"), Verdict::kDeny) << "not connected here";
  EXPECT_NE(f.audit_log().find("a bridge's cmd for a node not connected to this broker"), std::string::npos);
  ASSERT_EQ(f.check(f.connect_node(*remote), kAclSubscribe, topic(remote->node_id, "cmd")), Verdict::kAllow);
  EXPECT_EQ(f.check(b, kAclWrite, topic(remote->node_id, "cmd"), "{}"), Verdict::kAllow);
}

TEST_F(BridgePrincipal, CarriesEveryTenantsDeviceTopicsButNotRejected) {
  FakeClient& b = connect_bridge();
  auto other_tenant = f.pki.enroll("globex");
  for (const std::string leaf : {"announce", "status", "telemetry", "cmd", "cmd_ack"}) {
    EXPECT_EQ(f.check(b, kAclSubscribe, "$devices/+/" + leaf), Verdict::kAllow) << leaf;
  }
  EXPECT_EQ(f.check(b, kAclSubscribe, "$devices/+/rejected"), Verdict::kDeny);
  EXPECT_EQ(f.check(b, kAclSubscribe, "$devices/#"), Verdict::kDeny);
  EXPECT_EQ(f.check(b, kAclRead, topic(other_tenant->node_id, "status")), Verdict::kAllow) << "no tenant applies";
  // A bridge's cmd goes only to a node connected here.
  ASSERT_EQ(f.check(f.connect_node(*remote), kAclSubscribe, topic(remote->node_id, "cmd")), Verdict::kAllow);
  EXPECT_EQ(f.check(b, kAclWrite, topic(remote->node_id, "cmd"), "{}"), Verdict::kAllow);
  EXPECT_EQ(f.check(b, kAclWrite, topic(remote->node_id, "cmd"), "{}", true), Verdict::kDeny) << "retain=no";
  // An agent holding the same tenant may do none of it.
  EXPECT_EQ(f.check(*agent, kAclSubscribe, "$devices/+/cmd_ack"), Verdict::kDeny);
  EXPECT_EQ(f.check(*agent, kAclWrite, topic(remote->node_id, "cmd"), "{}"), Verdict::kDeny);
}

TEST_F(BridgePrincipal, ItsAnnouncesAreVerifiedInTheWriteCheck) {
  FakeClient& b = connect_bridge();
  std::string tampered = manifest(*remote, f.now);
  tampered.replace(tampered.find("\"echo\""), 6, "\"ecko\"");
  EXPECT_EQ(f.publish(b, topic(remote->node_id, "announce"), tampered, true), Verdict::kDeny);
  EXPECT_EQ(f.publish(b, topic(remote->node_id, "announce"), manifest(*remote, f.now), true), Verdict::kAllow);
  EXPECT_TRUE(f.plugin->parts().registry.find(remote->node_id)->remote);
}

TEST_F(BridgePrincipal, TheAckOfARelayedCmdIsNotAuditedAsUnknown) {
  FakeClient& local = f.connect_node(*remote);
  ASSERT_EQ(f.publish(local, topic(remote->node_id, "announce"), manifest(*remote, f.now), true), Verdict::kAllow);
  FakeClient& b = connect_bridge();
  const std::string cmd = R"({"type":"cmd","msg_id":")" + new_msg_id() + R"(","ts_ms":1,"deadline_ms":2000,)" +
                          R"("payload":{"tool":")" + echo_tool() + R"(","arguments":{"message":"ping"}}})";
  ASSERT_EQ(f.publish(b, topic(remote->node_id, "cmd"), cmd, false), Verdict::kAllow);
  EXPECT_EQ(f.plugin->parts().counters.relayed_cmds.load(), 1u);
  ASSERT_EQ(f.publish(local, topic(remote->node_id, "cmd_ack"), ack_for(cmd), false), Verdict::kAllow);
  EXPECT_EQ(f.audit_log().find("answers no call"), std::string::npos);
}

TEST_F(BridgePrincipal, TheBridgeScopeMakesABridgeNotAnAgent) {
  FakeClient& b = connect_bridge();
  f.plugin->on_control(b.view(), R"({"id":"c1","command":"nodes"})");
  EXPECT_TRUE(f.broker.take(std::string(kControlResponseTopic)).empty()) << "the $CONTROL driver is for agents";
}

}  // namespace
}  // namespace fleetmcp::plugin
