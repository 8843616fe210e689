// The HTTP front's limits and quotas (issue 17 items 4, 5, 6, 8; docs/http-front.md "Limits and
// quotas"), each object on its own: connections per address and in total, MCP sessions per
// caller and tenant with eviction of the caller's own oldest, SSE stream quotas and the re-checks
// that end a stream with its token, commit tokens per caller, and the audit-line throttle.
#include <gtest/gtest.h>

#include <vector>

#include "broker_plugin/http/commit_tokens.h"
#include "broker_plugin/http/connection_limit.h"
#include "broker_plugin/http/front_options.h"
#include "broker_plugin/http/mcp_session.h"
#include "broker_plugin/http/open_streams.h"
#include "common/refusal_throttle.h"
#include "common/error.h"

namespace fleetmcp::http {
namespace {

AgentToken agent(std::string sub, std::string tenant = "acme", int64_t exp_s = 2000, std::string jti = "j1") {
  AgentToken a;
  a.sub = std::move(sub);
  a.tenant = std::move(tenant);
  a.exp = exp_s;
  a.jti = std::move(jti);
  return a;
}

TEST(ConnectionLimit, CapsEachAddressAndTheTotalAndGivesPlacesBack) {
  auto limit = std::make_shared<ConnectionLimit>(3, 2);
  auto a1 = limit->admit("10.0.0.1");
  auto a2 = limit->admit("10.0.0.1");
  EXPECT_TRUE(a1 && a2);
  EXPECT_FALSE(limit->admit("10.0.0.1"));  // per address
  auto b1 = limit->admit("10.0.0.2");
  EXPECT_TRUE(b1);
  EXPECT_FALSE(limit->admit("10.0.0.3"));  // in total
  EXPECT_EQ(limit->open(), 3u);
  EXPECT_EQ(limit->refused(), 2u);
  a1.reset();
  EXPECT_TRUE(limit->admit("10.0.0.3"));
  EXPECT_EQ(limit->open(), 2u);  // the ticket just admitted was dropped at once
}

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

TEST(OpenStreams, QuotasPerCallerAndTenant) {
  auto streams = std::make_shared<OpenStreams>(StreamQuota{2, 3, std::chrono::hours(1)});
  auto a1 = streams->open(agent("alice"), 0, [](StreamStop) {});
  auto a2 = streams->open(agent("alice"), 0, [](StreamStop) {});
  EXPECT_TRUE(a1 && a2);
  EXPECT_FALSE(streams->open(agent("alice"), 0, [](StreamStop) {}));  // alice's quota
  auto b1 = streams->open(agent("bob"), 0, [](StreamStop) {});
  EXPECT_TRUE(b1);
  EXPECT_FALSE(streams->open(agent("carol"), 0, [](StreamStop) {}));  // acme's quota
  EXPECT_TRUE(streams->open(agent("olga", "other"), 0, [](StreamStop) {}));
  a1.reset();
  EXPECT_TRUE(streams->open(agent("alice"), 0, [](StreamStop) {}));
}

TEST(OpenStreams, CheckStopsStreamsAtExpiryRevocationAndLifetimeOnce) {
  auto streams = std::make_shared<OpenStreams>(StreamQuota{10, 10, std::chrono::milliseconds(60'000)});
  std::vector<std::pair<std::string, StreamStop>> stopped;
  auto stop_as = [&](std::string name) { return [&, name](StreamStop why) { stopped.emplace_back(name, why); }; };
  auto expiring = streams->open(agent("alice", "acme", 10, "j-exp"), 0, stop_as("expiring"));
  auto revoked = streams->open(agent("bob", "acme", 1000, "j-rev"), 0, stop_as("revoked"));
  auto old = streams->open(agent("carol", "acme", 1000, "j-old"), 0, stop_as("old"));
  const auto none_revoked = [](std::string_view) { return false; };
  EXPECT_EQ(streams->check(9'999, none_revoked), 0u);
  EXPECT_EQ(streams->check(10'000, none_revoked), 1u);
  EXPECT_EQ(streams->check(20'000, [](std::string_view jti) { return jti == "j-rev"; }), 1u);
  EXPECT_EQ(streams->check(60'000, [](std::string_view jti) { return jti == "j-rev"; }), 1u);
  EXPECT_EQ(streams->check(70'000, none_revoked), 0u);  // each is told once
  ASSERT_EQ(stopped.size(), 3u);
  EXPECT_EQ(stopped[0], std::make_pair(std::string("expiring"), StreamStop::kTokenExpired));
  EXPECT_EQ(stopped[1], std::make_pair(std::string("revoked"), StreamStop::kTokenRevoked));
  EXPECT_EQ(stopped[2], std::make_pair(std::string("old"), StreamStop::kLifetime));
  EXPECT_EQ(streams->size(), 3u);  // until the streams have closed and dropped their tickets
  expiring.reset();
  revoked.reset();
  old.reset();
  EXPECT_EQ(streams->size(), 0u);
}

TEST(CommitTokens, ACallerHoldsAtMostItsCapAndANewTokenReplacesItsOldest) {
  CommitTokens tokens(30000, 2);
  const CommitBinding alice{"acme/alice", "relay.x.relay0.set", "h"};
  const CommitBinding bob{"acme/bob", "relay.x.relay0.set", "h"};
  const std::string t1 = tokens.issue(alice, 0);
  const std::string t2 = tokens.issue(alice, 1);
  const std::string b1 = tokens.issue(bob, 1);
  const std::string t3 = tokens.issue(alice, 2);
  EXPECT_EQ(tokens.outstanding(), 3u);
  EXPECT_FALSE(tokens.redeem(t1, alice, 3));  // replaced by t3
  EXPECT_TRUE(tokens.redeem(t2, alice, 3));
  EXPECT_TRUE(tokens.redeem(t3, alice, 3));
  EXPECT_TRUE(tokens.redeem(b1, bob, 3));     // bob's own was untouched
  for (int i = 0; i < 1000; ++i) tokens.issue(alice, 10 + i);
  EXPECT_EQ(tokens.outstanding(), 2u);
  tokens.issue(bob, 100'000);  // every earlier one has expired
  EXPECT_EQ(tokens.outstanding(), 1u);
}

TEST(RefusalThrottle, OneLinePerKeyAndIntervalCountingTheRest) {
  RefusalThrottle throttle(1000);
  EXPECT_EQ(throttle.admit("k", 0), 0u);
  EXPECT_FALSE(throttle.admit("k", 10));
  EXPECT_FALSE(throttle.admit("k", 999));
  EXPECT_EQ(throttle.admit("other", 999), 0u);
  EXPECT_EQ(throttle.admit("k", 1000), 2u);  // this line stands for the two not written
  EXPECT_EQ(throttle.admit("k", 2500), 0u);
  RefusalThrottle every(0);
  EXPECT_EQ(every.admit("k", 0), 0u);
  EXPECT_EQ(every.admit("k", 0), 0u);
}

TEST(FrontOptions, LimitsHaveSaneDefaultsAndAreOptions) {
  const FrontOptions defaults = parse_front_options({});
  EXPECT_EQ(defaults.max_body_bytes, 1u << 20);  // the JSON parser's limit
  EXPECT_EQ(defaults.max_connections, 512u);
  EXPECT_EQ(defaults.max_connections_per_address, 64u);
  EXPECT_EQ(defaults.max_sessions_per_caller, 32u);
  EXPECT_EQ(defaults.max_streams_per_caller, 16u);
  EXPECT_EQ(defaults.max_batch, 32u);
  const FrontOptions o = parse_front_options({{"http_max_connections", "10"},
                                              {"http_max_connections_per_address", "2"},
                                              {"http_max_sessions_per_caller", "3"},
                                              {"http_max_sessions_per_tenant", "4"},
                                              {"http_max_streams_per_caller", "5"},
                                              {"http_max_streams_per_tenant", "6"},
                                              {"http_max_stream_ms", "7000"},
                                              {"http_max_batch", "8"},
                                              {"http_max_commit_tokens_per_caller", "9"},
                                              {"http_audit_refusal_interval_ms", "0"}});
  EXPECT_EQ(o.max_connections, 10u);
  EXPECT_EQ(o.max_connections_per_address, 2u);
  EXPECT_EQ(o.max_sessions_per_caller, 3u);
  EXPECT_EQ(o.max_sessions_per_tenant, 4u);
  EXPECT_EQ(o.max_streams_per_caller, 5u);
  EXPECT_EQ(o.max_streams_per_tenant, 6u);
  EXPECT_EQ(o.max_stream, std::chrono::milliseconds(7000));
  EXPECT_EQ(o.max_batch, 8u);
  EXPECT_EQ(o.max_commit_tokens_per_caller, 9u);
  EXPECT_EQ(o.audit_refusal_interval, std::chrono::milliseconds(0));
  EXPECT_THROW(parse_front_options({{"http_max_connections", "0"}}), Error);
  EXPECT_THROW(parse_front_options({{"http_max_batch", "many"}}), Error);
}

}  // namespace
}  // namespace fleetmcp::http
