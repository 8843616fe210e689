// Issue 24 item 2: a client id belongs to the principal (kind, tenant, sub) connected with it, and
// after it leaves for as long as mosquitto may keep its session.
#include <gtest/gtest.h>

#include "broker_plugin/access/client_id_claims.h"

namespace fleetmcp::plugin {
namespace {

Principal agent(std::string tenant, std::string sub, PrincipalKind kind = PrincipalKind::kAgent) {
  Principal p;
  p.kind = kind;
  p.tenant = std::move(tenant);
  p.name = std::move(sub);
  return p;
}

constexpr int64_t kDay = 86'400'000;
const Principal kAcme = agent("acme", "agent");
const Principal kBeta = agent("beta", "agent");
int handle_a = 0, handle_b = 0;

TEST(ClientIdClaims, TheSameSubOfAnotherTenantOrKindIsAnotherPrincipal) {
  ClientIdClaims claims;
  EXPECT_FALSE(claims.held_by_another("agent", kBeta, 0));
  claims.connected("agent", kAcme, &handle_a, /*may_persist=*/false, /*durable=*/false);
  const auto holder = claims.held_by_another("agent", kBeta, 0);
  ASSERT_TRUE(holder);
  EXPECT_TRUE(holder->connected);
  EXPECT_EQ(holder->owner, ClaimOwner::of(kAcme));
  EXPECT_TRUE(claims.held_by_another("agent", agent("acme", "agent", PrincipalKind::kBridge), 0));
  EXPECT_FALSE(claims.held_by_another("agent", kAcme, 0));  // its own: mosquitto's takeover is its business
}

TEST(ClientIdClaims, ACleanSessionFreesTheIdWhenItsClientLeaves) {
  ClientIdClaims claims(7 * kDay);
  claims.connected("agent", kAcme, &handle_a, false, false);
  claims.disconnected("agent", &handle_a, 1000);
  EXPECT_FALSE(claims.held_by_another("agent", kBeta, 1000));
  EXPECT_EQ(claims.size(), 0u);
}

TEST(ClientIdClaims, AnEndedSessionStaysItsOwnersUntilMosquittoDropsIt) {
  ClientIdClaims claims(7 * kDay);
  claims.connected("agent", kAcme, &handle_a, /*may_persist=*/true, /*durable=*/true);
  claims.disconnected("agent", &handle_a, 1000);
  const auto holder = claims.held_by_another("agent", kBeta, 1000 + 7 * kDay - 1);
  ASSERT_TRUE(holder);
  EXPECT_FALSE(holder->connected);
  EXPECT_FALSE(claims.held_by_another("agent", kBeta, 1000 + 7 * kDay));  // persistent_client_expiration passed
  claims.forget_expired(1000 + 7 * kDay);
  EXPECT_EQ(claims.size(), 0u);
}

TEST(ClientIdClaims, WithoutAnExpiryAnEndedSessionIsKeptUntilItsOwnerReturns) {
  ClientIdClaims claims;  // no persistent_client_expiration
  claims.connected("agent", kAcme, &handle_a, true, false);
  claims.disconnected("agent", &handle_a, 1000);
  claims.forget_expired(1000 + 3650 * kDay);
  EXPECT_TRUE(claims.held_by_another("agent", kBeta, 1000 + 3650 * kDay));
  claims.connected("agent", kAcme, &handle_b, false, false);  // resumed with a clean session, then left
  claims.disconnected("agent", &handle_b, 2000);
  EXPECT_FALSE(claims.held_by_another("agent", kBeta, 2000));
}

TEST(ClientIdClaims, TheDisconnectOfAConnectionTakenOverBySameOwnerKeepsTheClaim) {
  ClientIdClaims claims;
  claims.connected("agent", kAcme, &handle_a, false, false);
  claims.connected("agent", kAcme, &handle_b, false, false);  // mosquitto then closes handle_a
  claims.disconnected("agent", &handle_a, 1000);
  const auto holder = claims.held_by_another("agent", kBeta, 1000);
  ASSERT_TRUE(holder);
  EXPECT_TRUE(holder->connected);
}

TEST(ClientIdClaims, APrincipalKeepsAtMostItsCapOfEndedSessionsAndCannotEvictAnothers) {
  ClientIdClaims claims;
  claims.connected("agent", kAcme, &handle_a, true, false);
  claims.disconnected("agent", &handle_a, 0);
  for (size_t i = 0; i <= ClientIdClaims::kMaxEndedPerOwner; ++i) {  // one more than the cap
    const std::string id = "agent-" + std::to_string(i);
    claims.connected(id, kBeta, &handle_b, true, false);
    claims.disconnected(id, &handle_b, static_cast<int64_t>(i));
  }
  EXPECT_EQ(claims.size(), 1 + ClientIdClaims::kMaxEndedPerOwner);
  EXPECT_FALSE(claims.held_by_another("agent-0", kAcme, 0));  // beta's oldest went
  EXPECT_TRUE(claims.held_by_another("agent-1", kAcme, 0));
  EXPECT_TRUE(claims.held_by_another("agent", kBeta, 0));     // acme's stays
}

// Issue 33 item 4: durable claims are never forgotten to make room (mosquitto keeps their
// sessions); the quota bounds them instead, and counts restored ones too.
TEST(ClientIdClaims, DurableClaimsAreBoundedByTheQuotaNotForgotten) {
  ClientIdClaims claims(kDay, /*max_durable_per_owner=*/ClientIdClaims::kMaxEndedPerOwner + 2);
  for (size_t i = 0; i < ClientIdClaims::kMaxEndedPerOwner + 2; ++i) {
    const std::string id = "agent-" + std::to_string(i);
    ASSERT_FALSE(claims.durable_quota_full(id, kBeta, 0)) << i;
    claims.connected(id, kBeta, &handle_b, true, /*durable=*/true);
    claims.disconnected(id, &handle_b, 0);
  }
  EXPECT_TRUE(claims.held_by_another("agent-0", kAcme, 0));  // the oldest is still beta's
  EXPECT_TRUE(claims.durable_quota_full("agent-new", kBeta, 0));
  EXPECT_FALSE(claims.durable_quota_full("agent-0", kBeta, 0));  // resuming its own
  EXPECT_FALSE(claims.durable_quota_full("agent-new", kAcme, 0));  // another principal's quota
  EXPECT_FALSE(claims.durable_quota_full("agent-new", kBeta, kDay));  // mosquitto dropped them by then
  EXPECT_EQ(claims.size(), 0u);

  ClientIdClaims restarted(kDay, 1);
  restarted.restore({{"agent-q", ClaimOwner::of(kBeta)}});
  EXPECT_TRUE(restarted.durable_quota_full("agent-r", kBeta, 365 * kDay));
  EXPECT_FALSE(restarted.durable_quota_full("agent-q", kBeta, 365 * kDay));
  ClientIdClaims none(kDay, 0);
  EXPECT_TRUE(none.durable_quota_full("agent-q", kBeta, 0));
}

TEST(ClientIdClaims, DurableClaimsRoundTripAndCountTheirChanges) {
  ClientIdClaims claims(kDay);
  const uint64_t before = claims.durable_changes();
  claims.connected("agent-q", kAcme, &handle_a, true, /*durable=*/true);
  claims.connected("auto-X", kAcme, &handle_b, true, /*durable=*/false);
  EXPECT_EQ(claims.durable_changes(), before + 1);
  claims.disconnected("agent-q", &handle_a, 0);  // still the same durable claim
  EXPECT_EQ(claims.durable_changes(), before + 1);
  const auto durable = claims.durable();
  ASSERT_EQ(durable.size(), 1u);
  EXPECT_EQ(durable[0].client_id, "agent-q");

  ClientIdClaims restarted(kDay);
  restarted.restore(durable);
  // mosquitto 2.0.11 never expires a session it restored: neither does the claim.
  restarted.forget_expired(365 * kDay);
  EXPECT_TRUE(restarted.held_by_another("agent-q", kBeta, 365 * kDay));
  EXPECT_EQ(restarted.durable().size(), 1u);
}

}  // namespace
}  // namespace fleetmcp::plugin
