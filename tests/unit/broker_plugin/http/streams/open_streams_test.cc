// OpenStreams: the SSE stream quotas and the re-checks that end a stream with its token (issue 17;
// docs/http-front.md "Limits and quotas").
#include <gtest/gtest.h>

#include "broker_plugin/http/streams/open_streams.h"
#include "tests/support/agent_claims.h"

namespace fleetmcp::http {
namespace {

using testing::agent;

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

}  // namespace
}  // namespace fleetmcp::http
