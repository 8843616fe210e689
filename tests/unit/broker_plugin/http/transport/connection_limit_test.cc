// The HTTP front's limits and quotas (issue 17 items 4, 5, 6, 8; docs/http-front.md "Limits and
// quotas"), each object on its own: connections per address, prefix, tenant and in total, the
// reserve for authenticated callers and who makes room at the cap, MCP sessions per
// caller and tenant with eviction of the caller's own oldest, SSE stream quotas and the re-checks
// that end a stream with its token, commit tokens per caller, and the audit-line throttle.
#include <gtest/gtest.h>

#include <vector>

#include "broker_plugin/http/calls/commit_tokens.h"
#include "broker_plugin/http/transport/connection_limit.h"
#include "broker_plugin/http/base/front_options.h"
#include "broker_plugin/http/mcp/mcp_session.h"
#include "broker_plugin/http/streams/open_streams.h"
#include "common/base/refusal_throttle.h"
#include "common/base/error.h"

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

ConnectionCaps caps(size_t total, size_t per_address, size_t per_prefix = 1000, size_t unauthenticated = 1000,
                    size_t per_tenant = 1000) {
  return ConnectionCaps{total, per_address, per_prefix, unauthenticated, per_tenant};
}

using Verdict = ConnectionLimit::Ticket::Verdict;

TEST(ConnectionLimit, CapsEachAddressAndTheTotalAndGivesPlacesBack) {
  auto limit = std::make_shared<ConnectionLimit>(caps(3, 2));
  auto a1 = limit->admit("10.0.0.1");
  auto a2 = limit->admit("10.0.0.1");
  EXPECT_TRUE(a1 && a2);
  EXPECT_FALSE(limit->admit("10.0.0.1"));  // per address
  auto b1 = limit->admit("10.0.0.2");
  EXPECT_TRUE(b1);
  for (auto* t : {a1.get(), a2.get(), b1.get()}) EXPECT_EQ(t->request("acme"), Verdict::kAdmitted);
  EXPECT_FALSE(limit->admit("10.0.0.3"));  // in total, and every connection has shown a token
  EXPECT_EQ(limit->open(), 3u);
  EXPECT_EQ(limit->refused(), 2u);
  a1.reset();
  EXPECT_TRUE(limit->admit("10.0.0.3"));
  EXPECT_EQ(limit->open(), 2u);  // the ticket just admitted was dropped at once
}

TEST(ConnectionLimit, CapsEachPrefix) {
  EXPECT_EQ(address_prefix("203.0.113.77"), "203.0.113.0/24");
  EXPECT_EQ(address_prefix("::ffff:203.0.113.77"), "203.0.113.0/24");
  EXPECT_EQ(address_prefix("2001:db8:0:1:aaaa::5"), "2001:db8:0:1::/64");
  EXPECT_EQ(address_prefix("not an address"), "not an address");
  auto limit = std::make_shared<ConnectionLimit>(caps(100, 100, 2));
  auto a = limit->admit("203.0.113.1");
  auto b = limit->admit("203.0.113.2");
  EXPECT_TRUE(a && b);
  EXPECT_FALSE(limit->admit("203.0.113.3"));  // another address of the same /24
  EXPECT_TRUE(limit->admit("203.0.114.1"));
  EXPECT_TRUE(limit->admit("2001:db8:0:1::1") && limit->admit("2001:db8:0:1::2"));
  auto v6a = limit->admit("2001:db8:0:1::1"), v6b = limit->admit("2001:db8:0:1::2");
  EXPECT_FALSE(limit->admit("2001:db8:0:1:ffff::3"));  // the same /64
  EXPECT_TRUE(limit->admit("2001:db8:0:2::1"));
}

// At the total cap, the unauthenticated connection that has waited longest for a request makes
// room; one being answered or one that has shown a valid token is never taken.
TEST(ConnectionLimit, AtTheCapTheLongestWaitingUnauthenticatedConnectionMakesRoom) {
  auto limit = std::make_shared<ConnectionLimit>(caps(3, 10));
  std::vector<int> closed;
  auto admit = [&](int id) {
    auto t = limit->admit("10.0.0.1");
    if (t) t->on_evict([&closed, id] { closed.push_back(id); });
    return t;
  };
  auto first = admit(1), second = admit(2), third = admit(3);
  EXPECT_EQ(first->request("acme"), Verdict::kAdmitted);  // shows a token: never evicted
  second->waiting(false);                                // being answered
  auto fourth = admit(4);
  ASSERT_TRUE(fourth);
  EXPECT_EQ(closed, std::vector<int>{3});
  EXPECT_EQ(limit->open(), 3u);
  EXPECT_EQ(limit->evicted(), 1u);
  third.reset();  // the evicted connection closes: its place was given already
  EXPECT_EQ(limit->open(), 3u);
  second->waiting(true);  // answered, waits again: behind the fourth
  auto fifth = admit(5);
  EXPECT_EQ(closed, (std::vector<int>{3, 4}));
  fifth->waiting(false);
  second->waiting(false);
  EXPECT_FALSE(admit(6));  // nothing left to take
  EXPECT_EQ(closed, (std::vector<int>{3, 4}));
}

// Past the unauthenticated share, a connection's first request must show a valid token.
TEST(ConnectionLimit, PastTheUnauthenticatedShareAConnectionIsOnProbation) {
  auto limit = std::make_shared<ConnectionLimit>(caps(4, 10, 10, 2));
  auto a = limit->admit("10.0.0.1"), b = limit->admit("10.0.0.1");
  auto c = limit->admit("10.0.0.1"), d = limit->admit("10.0.0.1");
  EXPECT_EQ(a->request(""), Verdict::kAdmitted);
  EXPECT_EQ(b->request(""), Verdict::kAdmitted);
  EXPECT_EQ(c->request(""), Verdict::kOnProbationWithoutToken);
  EXPECT_EQ(d->request("acme"), Verdict::kAdmitted);
  EXPECT_TRUE(d->authenticated());
  EXPECT_FALSE(c->authenticated());
  a.reset();
  auto e = limit->admit("10.0.0.1");  // two unauthenticated open again (b and c): on probation too
  EXPECT_EQ(e->request(""), Verdict::kOnProbationWithoutToken);
}

TEST(ConnectionLimit, ATenantHoldsAtMostItsShare) {
  auto limit = std::make_shared<ConnectionLimit>(caps(10, 10, 10, 10, 2));
  auto a = limit->admit("10.0.0.1"), b = limit->admit("10.0.0.1"), c = limit->admit("10.0.0.1");
  auto d = limit->admit("10.0.0.1");
  EXPECT_EQ(a->request("acme"), Verdict::kAdmitted);
  EXPECT_EQ(b->request("acme"), Verdict::kAdmitted);
  EXPECT_EQ(c->request("acme"), Verdict::kTenantFull);
  EXPECT_EQ(d->request("beta"), Verdict::kAdmitted);
  a.reset();
  EXPECT_EQ(c->request("acme"), Verdict::kAdmitted);
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
  const FrontOptions defaults = parse_front_options(front_option_set({})).value();
  EXPECT_EQ(defaults.max_body_bytes, 1u << 20);  // the JSON parser's limit
  EXPECT_EQ(defaults.max_connections, 512u);
  EXPECT_EQ(defaults.max_connections_per_address, 64u);
  EXPECT_EQ(defaults.max_connections_per_prefix, 128u);
  EXPECT_EQ(defaults.reserved_connections, 128u);  // a quarter of the connections
  EXPECT_EQ(defaults.max_connections_per_tenant, 128u);
  EXPECT_EQ(defaults.header_timeout, std::chrono::milliseconds(5000));
  EXPECT_EQ(defaults.max_header_bytes, 8192u);
  EXPECT_EQ(defaults.max_sessions_per_caller, 32u);
  EXPECT_EQ(defaults.max_streams_per_caller, 16u);
  EXPECT_EQ(defaults.max_batch, 32u);
  const FrontOptions o = parse_front_options(front_option_set({{"http_max_connections", "10"},
                                              {"http_max_connections_per_address", "2"},
                                              {"http_max_sessions_per_caller", "3"},
                                              {"http_max_sessions_per_tenant", "4"},
                                              {"http_max_streams_per_caller", "5"},
                                              {"http_max_streams_per_tenant", "6"},
                                              {"http_max_stream_ms", "7000"},
                                              {"http_max_batch", "8"},
                                              {"http_max_commit_tokens_per_caller", "9"},
                                              {"http_audit_refusal_interval_ms", "0"}})).value();
  EXPECT_EQ(o.max_connections, 10u);
  EXPECT_EQ(o.reserved_connections, 2u);  // a quarter of 10 unless given
  EXPECT_EQ(o.max_connections_per_tenant, 2u);
  EXPECT_EQ(o.max_connections_per_address, 2u);
  EXPECT_EQ(o.max_sessions_per_caller, 3u);
  EXPECT_EQ(o.max_sessions_per_tenant, 4u);
  EXPECT_EQ(o.max_streams_per_caller, 5u);
  EXPECT_EQ(o.max_streams_per_tenant, 6u);
  EXPECT_EQ(o.max_stream, std::chrono::milliseconds(7000));
  EXPECT_EQ(o.max_batch, 8u);
  EXPECT_EQ(o.max_commit_tokens_per_caller, 9u);
  EXPECT_EQ(o.audit_refusal_interval, std::chrono::milliseconds(0));
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_max_connections", "0"}})).ok());
  const FrontOptions shares = parse_front_options(front_option_set({{"http_max_connections", "10"},
                                                   {"http_max_connections_per_prefix", "3"},
                                                   {"http_reserved_connections", "0"},
                                                   {"http_max_connections_per_tenant", "9"},
                                                   {"http_header_timeout_ms", "1500"},
                                                   {"http_max_header_bytes", "16384"}})).value();
  EXPECT_EQ(shares.max_connections_per_prefix, 3u);
  EXPECT_EQ(shares.reserved_connections, 0u);
  EXPECT_EQ(shares.max_connections_per_tenant, 9u);
  EXPECT_EQ(shares.header_timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(shares.max_header_bytes, 16384u);
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_max_connections", "10"}, {"http_reserved_connections", "10"}})).ok());
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_max_header_bytes", "100"}})).ok());
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_max_batch", "many"}})).ok());
}

}  // namespace
}  // namespace fleetmcp::http
