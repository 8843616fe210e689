// Admission alone (broker_plugin/access/admission.h): identities, sessions and kicks over a test
// PKI and a recording broker, without a FleetPlugin around it. The tick counter is advanced here
// as FleetPlugin::on_tick does before it runs Admission's tick.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "broker_plugin/access/admission.h"
#include "tests/support/plugin_fake_broker.h"

namespace fleetmcp::plugin {
namespace {

using testing::FakeClient;

class AdmissionTest : public ::testing::Test {
 protected:
  void tick() {
    counters.ticks.fetch_add(1);
    admission.on_tick(now);
  }
  Verdict connect_agent(const FakeClient& client, int64_t expires_in_s, const std::string& jti = new_node_id()) {
    return admission.basic_auth(client.view(),
                                pki.token(client.username, "acme", {"devices:read"}, now / 1000 + expires_in_s,
                                          "fleetmcp", jti));
  }

  testing::TestPki pki;
  int64_t now = fleetmcp::now_ms();
  PluginClock clock = [this] { return now; };
  PluginCounters counters;
  AuditTrail audit{"", /*refusal_interval_ms=*/0, clock, counters};
  testing::FakeBroker broker;
  Admission admission{ClientIdentity(pki.ca(), pki.issuer().public_key(), "fleetmcp",
                                     WakerCredentials::generate("fleetmcp-plugin"),
                                     std::make_shared<const RevocationList>()),
                      /*persistent_client_expiration_ms=*/86'400'000, /*max_persistent_sessions=*/2, broker, clock, audit, counters};
};

TEST_F(AdmissionTest, AnAgentWhoseTokenExpiredIsKickedOnTheTickAfterNext) {
  const FakeClient agent{"ops-1", "ops"};
  ASSERT_EQ(connect_agent(agent, 60), Verdict::kAllow);
  Session* session = admission.find(agent.view());
  ASSERT_TRUE(session != nullptr && session->principal);
  EXPECT_FALSE(admission.token_expired(*session->principal));
  now += 61'000;
  EXPECT_TRUE(admission.token_expired(*session->principal));
  tick();  // the sweep queues the kick
  tick();
  EXPECT_TRUE(broker.kicked.empty());
  tick();
  EXPECT_EQ(broker.kicked, std::vector<std::string>{"ops-1"});
  EXPECT_EQ(counters.clients_kicked.load(), 1u);
  tick();
  EXPECT_EQ(broker.kicked.size(), 1u);  // once
}

TEST_F(AdmissionTest, AQueuedKickSparesTheNextConnectionWithTheSameClientId) {
  const FakeClient first{"ops-1", "ops"};
  ASSERT_EQ(connect_agent(first, 60), Verdict::kAllow);
  now += 61'000;
  tick();  // kick queued for `first`
  admission.release_client_id(first.view());
  admission.end(&first);
  const FakeClient second{"ops-1", "ops"};
  ASSERT_EQ(connect_agent(second, 3600), Verdict::kAllow);
  tick();
  tick();
  tick();
  EXPECT_TRUE(broker.kicked.empty());
  EXPECT_EQ(counters.clients_kicked.load(), 0u);
}

TEST_F(AdmissionTest, ANodeIsKnownByItsCertificateAndAClientWithoutOneGetsNothing) {
  const auto node = pki.enroll("acme");
  const FakeClient device{node->node_id, node->node_id};
  broker.certificates[&device] = node->certificate;
  EXPECT_EQ(admission.find(device.view()), nullptr);
  Session* session = admission.identify_by_certificate(device.view());
  ASSERT_TRUE(session->principal);
  EXPECT_EQ(session->principal->kind, PrincipalKind::kNode);
  EXPECT_EQ(session->principal->tenant, "acme");
  EXPECT_EQ(admission.find(device.view()), session);

  const FakeClient stranger{"who", "who"};
  EXPECT_FALSE(admission.identify_by_certificate(stranger.view())->principal);
  EXPECT_EQ(counters.auth_accepted.load(), 1u);
  EXPECT_EQ(counters.auth_refused.load(), 1u);
}

TEST_F(AdmissionTest, RevokedCredentialsLoseTheirSessionAtOnceAndTheClientIsKicked) {
  const FakeClient agent{"ops-1", "ops"};
  const std::string jti = new_node_id();
  ASSERT_EQ(connect_agent(agent, 3600, jti), Verdict::kAllow);
  auto revoked = std::make_shared<RevocationList>();
  revoked->add(jti);
  admission.set_revocations(revoked);
  EXPECT_FALSE(admission.find(agent.view())->principal);  // every check denies from now on
  tick();
  tick();
  EXPECT_EQ(broker.kicked, std::vector<std::string>{"ops-1"});
  EXPECT_EQ(connect_agent(FakeClient{"ops-2", "ops"}, 3600, jti), Verdict::kDeny);
}

// Issue 33 item 4: at most max_persistent_sessions (2 here) clean-session-false sessions per
// principal; the next is refused at CONNECT. Resuming one, clean sessions and other
// principals are not affected; ending one with a clean session makes room.
TEST_F(AdmissionTest, APrincipalLeavesAtMostItsQuotaOfPersistentSessions) {
  std::vector<std::unique_ptr<FakeClient>> clients;
  const auto connect = [&](std::string id, std::string sub, bool clean_session, int protocol = 4) {
    clients.push_back(std::make_unique<FakeClient>(FakeClient{std::move(id), std::move(sub), "127.0.0.1", protocol,
                                                              clean_session}));
    const Verdict verdict = connect_agent(*clients.back(), 600);
    admission.release_client_id(clients.back()->view());  // and leaves: mosquitto keeps a persistent one
    admission.end(clients.back().get());
    return verdict;
  };
  EXPECT_EQ(connect("ops-1", "ops", false), Verdict::kAllow);
  EXPECT_EQ(connect("ops-2", "ops", false, 5), Verdict::kAllow);
  EXPECT_EQ(connect("ops-3", "ops", false), Verdict::kDeny);
  EXPECT_EQ(connect("ops-3", "ops", false, 5), Verdict::kDeny);
  EXPECT_EQ(counters.auth_refused.load(), 2u);
  EXPECT_EQ(connect("ops-1", "ops", false), Verdict::kAllow);  // resumed
  EXPECT_EQ(connect("ops-4", "ops", true), Verdict::kAllow);   // 3.1.1 clean session
  EXPECT_EQ(connect("ops-5", "ops", true, 5), Verdict::kAllow);  // MQTT 5 clean start
  EXPECT_EQ(connect("dev-1", "dev", false), Verdict::kAllow);    // another principal
  EXPECT_EQ(connect("ops-2", "ops", true), Verdict::kAllow);     // ends ops-2's session
  EXPECT_EQ(connect("ops-3", "ops", false), Verdict::kAllow);
  EXPECT_EQ(connect("ops-6", "ops", false), Verdict::kDeny);
  now += 86'400'000;  // persistent_client_expiration: mosquitto dropped them
  EXPECT_EQ(connect("ops-6", "ops", false), Verdict::kAllow);
}

}  // namespace
}  // namespace fleetmcp::plugin
