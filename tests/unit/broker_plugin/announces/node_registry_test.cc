#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "broker_plugin/announces/node_registry.h"
#include "broker_plugin/access/session_table.h"
#include "broker_plugin/core/state_file.h"
#include "broker_plugin/announces/status_message.h"
#include "broker_plugin/announces/verdict_cache.h"
#include "common/base/json.h"

namespace fleetmcp::plugin {
namespace {

const std::string kA = "01hzx9k3m4p7q8r9s0t1v2w3xy";
const std::string kB = "01hzx9k3m4p7q8r9s0t1v2w3xz";

std::shared_ptr<const ManifestSummary> manifest(int64_t expires_at_ms, std::string etag = std::string(64, 'a')) {
  auto m = std::make_shared<ManifestSummary>();
  m->etag = std::move(etag);
  m->issued_at_ms = expires_at_ms - 1000;
  m->expires_at_ms = expires_at_ms;
  return m;
}

TEST(NodeRegistry, StateFollowsRevocationExpiryAndSession) {
  NodeRegistry registry;
  NodeRecord& n = registry.get_or_create(kA, "acme");
  EXPECT_EQ(n.state(), NodeState::kOffline);
  int handle = 0;
  n.session = &handle;
  EXPECT_EQ(n.state(), NodeState::kOnline);
  n.manifest = manifest(2000);
  n.manifest_expired = true;
  EXPECT_EQ(n.state(), NodeState::kExpired);
  n.revoked = true;
  EXPECT_EQ(n.state(), NodeState::kRevoked);
}

TEST(NodeRegistry, ManifestIsFreshOnlyWhenVerifiedAndUnexpired) {
  NodeRecord n;
  n.manifest = manifest(2000);
  EXPECT_FALSE(n.manifest_fresh(1000));  // restored, not verified in this run
  n.manifest_verified = true;
  EXPECT_TRUE(n.manifest_fresh(1999));
  EXPECT_FALSE(n.manifest_fresh(2000));
}

TEST(NodeRegistry, ExpiryIndexKeepsOnlyTheCurrentManifest) {
  NodeRegistry registry;
  NodeRecord& a = registry.get_or_create(kA, "acme");
  NodeRecord& b = registry.get_or_create(kB, "acme");
  a.manifest = manifest(1000);
  registry.schedule_expiry(a);
  b.manifest = manifest(3000);
  registry.schedule_expiry(b);
  a.manifest = manifest(5000);  // re-announced: the old expiry no longer applies
  registry.schedule_expiry(a);
  EXPECT_TRUE(registry.take_expired(2000).empty());
  const auto due = registry.take_expired(3000);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0]->node_id, kB);
  EXPECT_EQ(registry.take_expired(9000).size(), 1u);
  EXPECT_TRUE(registry.take_expired(9000).empty());
}

TEST(NodeRegistry, TenantComesFromTheLatestCertificate) {
  NodeRegistry registry;
  registry.get_or_create(kA, "acme");
  EXPECT_EQ(registry.get_or_create(kA, "").tenant, "acme");
  EXPECT_EQ(registry.get_or_create(kA, "beta").tenant, "beta");
  EXPECT_EQ(registry.size(), 1u);
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

TEST(StateFile, RoundTripsAndRefusesDamage) {
  const auto path = (std::filesystem::temp_directory_path() / ("fleetmcp-state-" + kA + ".json")).string();
  std::remove(path.c_str());
  EXPECT_TRUE(load_state_file(path).nodes.empty());
  save_state_file(path, {.nodes = {{kA, "acme", "PEM", 1763800000000, std::string(64, 'c'), std::string(64, 'd')},
                                   {kB, "beta", "", std::nullopt, "", ""}},
                         .client_ids = {{"ops-1", {PrincipalKind::kAgent, "acme", "ops"}}}});
  const PersistedState state = load_state_file(path);
  const auto& loaded = state.nodes;
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].node_id, kA);
  EXPECT_EQ(loaded[0].certificate_pem, "PEM");
  EXPECT_EQ(loaded[0].last_issued_at_ms, 1763800000000);
  EXPECT_EQ(loaded[0].hw_kid, std::string(64, 'd'));
  EXPECT_FALSE(loaded[1].last_issued_at_ms);
  ASSERT_EQ(state.client_ids.size(), 1u);
  EXPECT_EQ(state.client_ids[0].client_id, "ops-1");
  EXPECT_EQ(state.client_ids[0].owner, (ClaimOwner{PrincipalKind::kAgent, "acme", "ops"}));
  std::ofstream(path) << R"({"version":1,"nodes":[]})";  // written before issue 24: no client_ids
  EXPECT_TRUE(load_state_file(path).client_ids.empty());
  std::ofstream(path) << R"({"version":1,"nodes":[],"client_ids":[{"client_id":"x","kind":"node"}]})";
  EXPECT_THROW(load_state_file(path), Error);
  std::ofstream(path) << R"({"version":1,"nodes":[{"node_id":"nope"}]})";
  EXPECT_THROW(load_state_file(path), Error);
  std::ofstream(path) << "{";
  EXPECT_THROW(load_state_file(path), Error);
  std::remove(path.c_str());
}

TEST(SessionTable, ARecycledHandleWithAnotherClientIdIsNotTheSameSession) {
  SessionTable sessions;
  int handle = 0;
  sessions.put(&handle, Session{"client-1", std::nullopt});
  EXPECT_NE(sessions.find(&handle, "client-1"), nullptr);
  EXPECT_EQ(sessions.find(&handle, "client-2"), nullptr);
  EXPECT_TRUE(sessions.end(&handle)->ended);
  sessions.drop_ended();
  EXPECT_EQ(sessions.find(&handle, "client-1"), nullptr);
}

TEST(SessionTable, ASessionRecordedAgainAfterItsEndSurvivesTheSweep) {
  SessionTable sessions;
  int handle = 0;
  sessions.put(&handle, Session{"old", std::nullopt});
  sessions.end(&handle);
  sessions.put(&handle, Session{"new", std::nullopt});
  sessions.drop_ended();
  EXPECT_NE(sessions.find(&handle, "new"), nullptr);
}

TEST(VerdictCache, BoundedWithTwoGenerations) {
  VerdictCache cache(4);  // two entries per generation
  auto digest = [](uint8_t n) {
    Digest32 d{};
    d[0] = n;
    return d;
  };
  for (uint8_t i = 0; i < 6; ++i) cache.put(digest(i), CachedVerdict{nullptr, std::nullopt});
  EXPECT_EQ(cache.find(digest(0)), nullptr);  // dropped with an old generation
  EXPECT_EQ(cache.find(digest(1)), nullptr);
  EXPECT_NE(cache.find(digest(2)), nullptr);  // old generation: promoted back
  EXPECT_NE(cache.find(digest(4)), nullptr);
  EXPECT_NE(cache.find(digest(2)), nullptr);
  EXPECT_LE(cache.size(), 4u);
}

}  // namespace
}  // namespace fleetmcp::plugin
