// McpSessions: the session quotas per caller and tenant, with eviction of the caller's own oldest
// (issue 17; docs/http-front.md "Limits and quotas").
#include <gtest/gtest.h>

#include "broker_plugin/http/mcp/mcp_session.h"
#include "tests/support/agent_claims.h"

namespace fleetmcp::http {
namespace {

using testing::agent;

TEST(McpSessionQuota, ACallerAtItsQuotaReplacesItsOwnOldestSession) {
  McpSessions sessions(100, SessionQuota{2, 100});
  const auto alice = agent("alice");
  const auto first = sessions.create(alice, kLatestRevision, 0).value();
  const auto second = sessions.create(alice, kLatestRevision, 1).value();
  const auto third = sessions.create(alice, kLatestRevision, 2).value();
  EXPECT_EQ(sessions.find(first->id()), nullptr);  // evicted
  EXPECT_NE(sessions.find(second->id()), nullptr);
  EXPECT_NE(sessions.find(third->id()), nullptr);
  EXPECT_EQ(sessions.size(), 2u);
  EXPECT_TRUE(sessions.create(agent("bob"), kLatestRevision, 3).ok());
  EXPECT_EQ(sessions.size(), 3u);
}

TEST(McpSessionQuota, AFullTenantRefusesANewCallerAndOtherTenantsAreUntouched) {
  McpSessions sessions(4, SessionQuota{10, 2});
  ASSERT_TRUE(sessions.create(agent("alice"), kLatestRevision, 0).ok());
  ASSERT_TRUE(sessions.create(agent("alice"), kLatestRevision, 1).ok());
  const auto refused = sessions.create(agent("bob"), kLatestRevision, 2);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), SessionRefusal::kTenantQuota);
  // alice may still start afresh: her own oldest goes.
  EXPECT_TRUE(sessions.create(agent("alice"), kLatestRevision, 3).ok());
  ASSERT_TRUE(sessions.create(agent("olga", "other"), kLatestRevision, 4).ok());
  ASSERT_TRUE(sessions.create(agent("olga", "other"), kLatestRevision, 5).ok());
  // The table (4) is full: a caller with no session of its own is refused, 503.
  EXPECT_EQ(sessions.create(agent("ivan", "third"), kLatestRevision, 6).error(), SessionRefusal::kTableFull);
  // Ending and sweeping sessions gives the quota back.
  EXPECT_EQ(sessions.sweep(1'000'000, 1000), 4u);
  EXPECT_TRUE(sessions.create(agent("bob"), kLatestRevision, 7).ok());
}

}  // namespace
}  // namespace fleetmcp::http
