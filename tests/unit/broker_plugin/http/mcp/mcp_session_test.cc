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
  const auto first = std::get<std::shared_ptr<McpSession>>(sessions.create(alice, kLatestRevision, 0));
  const auto second = std::get<std::shared_ptr<McpSession>>(sessions.create(alice, kLatestRevision, 1));
  const auto third = std::get<std::shared_ptr<McpSession>>(sessions.create(alice, kLatestRevision, 2));
  EXPECT_EQ(sessions.find(first->id()), nullptr);  // evicted
  EXPECT_NE(sessions.find(second->id()), nullptr);
  EXPECT_NE(sessions.find(third->id()), nullptr);
  EXPECT_EQ(sessions.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<std::shared_ptr<McpSession>>(sessions.create(agent("bob"), kLatestRevision, 3)));
  EXPECT_EQ(sessions.size(), 3u);
}

TEST(McpSessionQuota, AFullTenantRefusesANewCallerAndOtherTenantsAreUntouched) {
  McpSessions sessions(4, SessionQuota{10, 2});
  sessions.create(agent("alice"), kLatestRevision, 0);
  sessions.create(agent("alice"), kLatestRevision, 1);
  const auto refused = sessions.create(agent("bob"), kLatestRevision, 2);
  ASSERT_TRUE(std::holds_alternative<SessionRefusal>(refused));
  EXPECT_EQ(std::get<SessionRefusal>(refused), SessionRefusal::kTenantQuota);
  // alice may still start afresh: her own oldest goes.
  EXPECT_TRUE(std::holds_alternative<std::shared_ptr<McpSession>>(sessions.create(agent("alice"), kLatestRevision, 3)));
  sessions.create(agent("olga", "other"), kLatestRevision, 4);
  sessions.create(agent("olga", "other"), kLatestRevision, 5);
  // The table (4) is full: a caller with no session of its own is refused, 503.
  EXPECT_EQ(std::get<SessionRefusal>(sessions.create(agent("ivan", "third"), kLatestRevision, 6)),
            SessionRefusal::kTableFull);
  // Ending and sweeping sessions gives the quota back.
  EXPECT_EQ(sessions.sweep(1'000'000, 1000), 4u);
  EXPECT_TRUE(std::holds_alternative<std::shared_ptr<McpSession>>(sessions.create(agent("bob"), kLatestRevision, 7)));
}

}  // namespace
}  // namespace fleetmcp::http
