// The telemetry fan-out (docs/protocol.md §4): one lease and one watch per node for any number of
// subscribers, each served at its own interval, leases renewed while anyone listens and given up
// when nobody does, and every subscriber told when the feed ends.
#include <gtest/gtest.h>

#include "broker_plugin/http/streams/telemetry_fanout.h"
#include "tests/support/front_fixture.h"
#include "tests/support/telemetry_recorder.h"

namespace fleetmcp::http::testing {
namespace {

using std::chrono::milliseconds;

class FanoutTest : public ::testing::Test {
 protected:
  ~FanoutTest() override { s->clear(); }

  std::shared_ptr<ManualScheduler> s = std::make_shared<ManualScheduler>();
  MemoryFleet fleet{test_registry(), s, [this] { return 1'800'000'000'000 + s->now_ms(); }};
  TelemetryFanout fanout{fleet, *test_registry(), s, milliseconds(10000), [this] { return s->now_ms(); }};
  FleetTool subscribe_tool;

  void SetUp() override {
    fleet.add_node("acme", std::string(kNode), {{"metrics", "system.metrics", {"snapshot", "subscribe"}, SafetyClass::kReadOnly, {5, 2, 2000}}});
    const auto snap = fleet.snapshot();
    subscribe_tool = *snap->find_tool("acme", *parse_tool_name("sys." + std::string(kNode) + ".metrics.subscribe"));
  }
};

TEST_F(FanoutTest, OneLeaseAtTheShortestIntervalServesEveryone) {
  auto slow = std::make_shared<Recorder>(), fast = std::make_shared<Recorder>();
  auto a = fanout.subscribe(subscribe_tool, "acme", 3000, slow);
  s->run();
  EXPECT_EQ(fleet.leased_interval_ms(std::string(kNode)), 3000);
  auto b = fanout.subscribe(subscribe_tool, "acme", 1000, fast);
  s->run();
  EXPECT_EQ(fleet.leased_interval_ms(std::string(kNode)), 1000);
  EXPECT_EQ(fleet.watchers(std::string(kNode)), 1u);
  const int slow_before = slow->samples, fast_before = fast->samples;
  s->advance(milliseconds(9000));
  EXPECT_EQ(fast->samples - fast_before, 9);
  EXPECT_EQ(slow->samples - slow_before, 3);
  EXPECT_EQ(fanout.feed_count(), 1u);
  EXPECT_EQ(fanout.subscriber_count(), 2u);
}

TEST_F(FanoutTest, LeasesAreRenewedWhileSubscribedAndDroppedAfter) {
  auto r = std::make_shared<Recorder>();
  auto sub = fanout.subscribe(subscribe_tool, "acme", 1000, r);
  s->run();
  EXPECT_EQ(fleet.lease_calls(), 1u);
  s->advance(milliseconds(35000));  // past the device's 30 s lease: renewed every 10 s
  EXPECT_GE(fleet.lease_calls(), 4u);
  EXPECT_GE(r->samples, 35);
  EXPECT_GT(sub->lease_expires_at_ms(), 1'800'000'000'000 + 30000);
  sub.reset();
  s->run();
  EXPECT_EQ(fanout.feed_count(), 0u);
  EXPECT_EQ(fleet.watchers(std::string(kNode)), 0u);
  const size_t calls = fleet.lease_calls();
  s->advance(milliseconds(30000));
  EXPECT_EQ(fleet.lease_calls(), calls);
}

TEST_F(FanoutTest, OfflineEndsEverySubscriberOnce) {
  auto a = std::make_shared<Recorder>(), b = std::make_shared<Recorder>();
  auto sa = fanout.subscribe(subscribe_tool, "acme", 1000, a);
  auto sb = fanout.subscribe(subscribe_tool, "acme", 2000, b);
  s->run();
  fleet.set_online(std::string(kNode), false);
  s->run();
  EXPECT_EQ(a->ended, "E_NODE_OFFLINE");
  EXPECT_EQ(b->ended, "E_NODE_OFFLINE");
  EXPECT_EQ(fanout.feed_count(), 0u);
}

TEST_F(FanoutTest, ARefusedLeaseEndsTheFeedWithItsError) {
  fleet.set_online(std::string(kNode), false);
  auto r = std::make_shared<Recorder>();
  auto sub = fanout.subscribe(subscribe_tool, "acme", 1000, r);
  s->run();
  EXPECT_EQ(r->ended, "E_NODE_OFFLINE");
  fleet.set_online(std::string(kNode), true);
  auto again = std::make_shared<Recorder>();
  auto sub2 = fanout.subscribe(subscribe_tool, "acme", 1000, again);  // a new feed, not the ended one
  s->advance(milliseconds(1000));
  EXPECT_FALSE(again->ended);
  EXPECT_EQ(again->samples, 2);
}

// A renewal the device does not answer in time leaves the running lease (and the stream on it)
// alone and asks again at the next renewal; only a refusal ends the feed (RFC-0009 4503).
TEST_F(FanoutTest, ARenewalTimeoutKeepsTheFeedAndRenewsLater) {
  auto r = std::make_shared<Recorder>();
  auto sub = fanout.subscribe(subscribe_tool, "acme", 1000, r);
  s->run();
  fleet.set_silent(std::string(kNode), true);
  s->advance(milliseconds(17000));  // the renewal at 10 s fails at its gateway deadline
  EXPECT_FALSE(r->ended) << r->ended.value_or("");
  EXPECT_EQ(fanout.feed_count(), 1u);
  fleet.set_silent(std::string(kNode), false);
  const size_t calls = fleet.lease_calls();
  s->advance(milliseconds(10000));
  EXPECT_GT(fleet.lease_calls(), calls);
  EXPECT_FALSE(r->ended) << r->ended.value_or("");
  EXPECT_GE(r->samples, 25);
}

}  // namespace
}  // namespace fleetmcp::http::testing
