// NodeRegistry: a node's state from its session, manifest, expiry and revocation.
#include <gtest/gtest.h>

#include "broker_plugin/announces/node_registry.h"
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

}  // namespace
}  // namespace fleetmcp::plugin
