// CommitTokens: the two-phase confirmation token, bound to its caller, tool and arguments, single use.
#include <gtest/gtest.h>

#include "broker_plugin/http/calls/commit_tokens.h"

namespace fleetmcp::http {
namespace {

TEST(CommitTokens, BoundSingleUseAndShortLived) {
  CommitTokens tokens(30000);
  const CommitBinding b{"acme/alice", "relay.x.relay0.set", "h1"};
  const std::string t = tokens.issue(b, 0);
  EXPECT_FALSE(tokens.redeem(t, CommitBinding{"acme/bob", b.tool, b.arguments_hash}, 1));
  const std::string t2 = tokens.issue(b, 0);
  EXPECT_TRUE(tokens.redeem(t2, b, 29999));
  EXPECT_FALSE(tokens.redeem(t2, b, 29999));
  const std::string t3 = tokens.issue(b, 0);
  EXPECT_FALSE(tokens.redeem(t3, b, 30000));
  EXPECT_NE(t2, t3);
}

// Behind a balancer: a token another front issued (out of a verified requestState) is spent here
// once, as if issued here; a second presentation, or one of a token issued here and spent, is not
// entered again.
TEST(CommitTokens, AnAdoptedTokenIsSpentOncePerFront) {
  CommitTokens issuing(30000);
  CommitTokens other(30000);
  const CommitBinding b{"acme/alice", "relay.x.relay0.set", "h1"};
  const std::string t = issuing.issue(b, 0);
  other.adopt(t, b, 30000, 10);
  EXPECT_FALSE(other.redeem(t, CommitBinding{"acme/bob", b.tool, b.arguments_hash}, 11));  // bound as sealed, and spent
  other.adopt(t, b, 30000, 12);
  EXPECT_FALSE(other.redeem(t, b, 13));  // spent here: not entered again
  const std::string u = issuing.issue(b, 0);
  other.adopt(u, b, 30000, 10);
  EXPECT_TRUE(other.redeem(u, b, 20));
  other.adopt(u, b, 30000, 21);
  EXPECT_FALSE(other.redeem(u, b, 22));
  EXPECT_TRUE(issuing.redeem(u, b, 23));  // the issuing front's own table is its own
  issuing.adopt(u, b, 30000, 24);
  EXPECT_FALSE(issuing.redeem(u, b, 25));
  const std::string late = issuing.issue(b, 0);
  other.adopt(late, b, 30000, 30000);     // expired
  EXPECT_FALSE(other.redeem(late, b, 30000));
  const std::string far = issuing.issue(b, 0);
  other.adopt(far, b, 10'000'000, 0);     // never past one TTL, whatever the state says
  EXPECT_FALSE(other.redeem(far, b, 30000));
}

TEST(CommitTokens, ArgumentsHashIgnoresKeyOrderAndSpacing) {
  EXPECT_EQ(arguments_hash(json::parse_strict(R"({"a":1,"b":[true,"x"]})").value()),
            arguments_hash(json::parse_strict(R"({ "b" : [ true , "x" ] , "a" : 1.0 })").value()));
  EXPECT_NE(arguments_hash(json::parse_strict(R"({"a":1})").value()), arguments_hash(json::parse_strict(R"({"a":2})").value()));
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

}  // namespace
}  // namespace fleetmcp::http
