// ConnectionLimit (issue 17; docs/http-front.md "Limits and quotas"): connections per address,
// prefix, tenant and in total, the reserve for authenticated callers and who makes room at the cap.
#include <gtest/gtest.h>

#include <vector>

#include "broker_plugin/http/transport/connection_limit.h"
#include "common/base/error.h"

namespace fleetmcp::http {
namespace {

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

}  // namespace
}  // namespace fleetmcp::http
