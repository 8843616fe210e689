#include "broker_plugin/calls/call_table.h"

#include <gtest/gtest.h>

#include <thread>

namespace fleetmcp::plugin {
namespace {

const std::string kA = "01hzx9k3m4p7q8r9s0t1v2w3xy";
const std::string kB = "01hzx9k3m4p7q8r9s0t1v2w3xz";

SentCall call(const std::string& msg_id, const std::string& node, int64_t deadline_at_ms) {
  SentCall c;
  c.msg_id = msg_id;
  c.queued.request.node_id = node;
  c.deadline_at_ms = deadline_at_ms;
  return c;
}

TEST(CallTable, SubmitFromManyThreadsKeepsEveryCallAndWakes) {
  CallTable table;
  std::atomic<int> wakes{0};
  table.set_wake([&] { ++wakes; });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) table.submit(QueuedCall{}, 1000);
    });
  }
  for (auto& t : threads) t.join();
  std::vector<QueuedCall> taken;
  table.take_submitted(taken);
  EXPECT_EQ(taken.size(), 400u);
  EXPECT_GE(wakes.load(), 1);
  EXPECT_LE(wakes.load(), 400);
  EXPECT_EQ(taken[0].submitted_at_ms, 1000);
  std::vector<QueuedCall> again;
  table.take_submitted(again);
  EXPECT_TRUE(again.empty());
}

// The batch handed in goes back as the inbox: the next submits reuse its memory.
TEST(CallTable, TheBatchVectorIsReusedAsTheInbox) {
  CallTable table;
  std::vector<QueuedCall> batch;
  batch.reserve(8);
  const QueuedCall* memory = batch.data();
  table.submit(QueuedCall{}, 1000, /*wake=*/false);
  table.take_submitted(batch);
  ASSERT_EQ(batch.size(), 1u);
  batch.clear();
  table.submit(QueuedCall{}, 2000, /*wake=*/false);  // into the reserved memory
  table.take_submitted(batch);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch.data(), memory);
  EXPECT_EQ(batch[0].submitted_at_ms, 2000);
}

TEST(CallTable, OnlyACallFindingTheInboxEmptyWakesTheBroker) {
  CallTable table;
  int wakes = 0;
  table.set_wake([&] { ++wakes; });
  table.submit(QueuedCall{}, 1000);
  table.submit(QueuedCall{}, 1000);  // the first call's wake brings a tick that takes both
  EXPECT_EQ(wakes, 1);
  std::vector<QueuedCall> taken;
  table.take_submitted(taken);
  EXPECT_EQ(taken.size(), 2u);
  table.submit(QueuedCall{}, 1000);  // taken since: this one needs its own wake
  EXPECT_EQ(wakes, 2);
  table.submit(QueuedCall{}, 1000, /*wake=*/false);
  EXPECT_EQ(wakes, 2);
}

TEST(CallTable, AnAckIsCorrelatedByNodeAndInReplyTo) {
  CallTable table;
  table.add(call("M1", kA, 5000));
  EXPECT_FALSE(table.take_answered(kB, "M1")) << "another node cannot answer A's call";
  EXPECT_FALSE(table.take_answered(kA, "M2"));
  const auto answered = table.take_answered(kA, "M1");
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->msg_id, "M1");
  EXPECT_FALSE(table.take_answered(kA, "M1")) << "answered once";
  EXPECT_TRUE(table.take_overdue(99999).empty()) << "its deadline left with it";
}

TEST(CallTable, DeadlinesExpireOldestFirst) {
  CallTable table;
  table.add(call("M2", kA, 6000));
  table.add(call("M1", kA, 5000));
  table.add(call("M3", kB, 7000));
  EXPECT_TRUE(table.take_overdue(4999).empty());
  const auto overdue = table.take_overdue(6000);
  ASSERT_EQ(overdue.size(), 2u);
  EXPECT_EQ(overdue[0].msg_id, "M1");
  EXPECT_EQ(overdue[1].msg_id, "M2");
  EXPECT_EQ(table.pending(), 1u);
}

TEST(CallTable, ASessionEndTakesOnlyThatNodesCalls) {
  CallTable table;
  table.add(call("M1", kA, 5000));
  table.add(call("M2", kB, 5000));
  table.add(call("M3", kA, 6000));
  const auto gone = table.take_for_node(kA);
  EXPECT_EQ(gone.size(), 2u);
  EXPECT_EQ(table.pending(), 1u);
  EXPECT_EQ(table.take_overdue(99999).size(), 1u) << "the other node's call keeps its deadline";
}

TEST(CallTable, FinishedCallsAreRecognisedAsLateForTwoMinutes) {
  CallTable table;
  table.remember_finished("M1", 1000);
  EXPECT_TRUE(table.finished_recently("M1"));
  EXPECT_FALSE(table.finished_recently("M2"));
  table.remember_finished("M2", 1000 + CallTable::kLateAckWindowMs + 1);
  EXPECT_FALSE(table.finished_recently("M1"));
  EXPECT_TRUE(table.finished_recently("M2"));
}

// Found by bench/soak.sh: the memory of finished calls grew with the call rate (~150 bytes per
// call for the whole window); a count bound keeps it flat whatever the rate.
TEST(CallTable, AtMostKLateAckMemoryFinishedCallsAreRemembered) {
  CallTable table;
  for (size_t i = 0; i <= CallTable::kLateAckMemory; ++i) table.remember_finished(std::to_string(i), 1000);
  EXPECT_FALSE(table.finished_recently("0")) << "the oldest is forgotten first";
  EXPECT_TRUE(table.finished_recently("1"));
  EXPECT_TRUE(table.finished_recently(std::to_string(CallTable::kLateAckMemory)));
}

// The ids are held once, in the order they came; lookups are views of them. Ids longer than a
// std::string keeps inline (msg_ids are 26 characters) stay findable while others come and go.
TEST(CallTable, LongIdsStayFindableWhileOthersAreAddedAndForgotten) {
  CallTable table;
  const auto id = [](size_t i) { return "01HZX9K3M4P7Q8R9S0T1V2" + std::to_string(10000 + i); };
  for (size_t i = 0; i < CallTable::kLateAckMemory + 100; ++i) table.remember_finished(id(i), 1000);
  table.remember_finished(id(CallTable::kLateAckMemory + 50), 1000);  // already there: no second copy
  EXPECT_FALSE(table.finished_recently(id(99)));
  for (size_t i = 100; i < CallTable::kLateAckMemory + 100; i += 997) EXPECT_TRUE(table.finished_recently(id(i))) << i;
  table.remember_relayed(id(1), 1000);
  EXPECT_TRUE(table.relayed(id(1)));
  EXPECT_FALSE(table.relayed(id(2)));
}

TEST(CallTable, AnsweredCallIsTakenByItsIdAndLeavesNoDeadlineBehind) {
  CallTable table;
  const std::string id = "01HZX9K3M4P7Q8R9S0T1V2W3XY";
  table.add(call(id, kA, 5000));
  table.add(call("01HZX9K3M4P7Q8R9S0T1V2W3XZ", kA, 4000));
  EXPECT_FALSE(table.take_answered(kB, id)) << "another node's ack";
  const auto taken = table.take_answered(kA, std::string_view(id));
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->msg_id, id);
  EXPECT_FALSE(table.take_answered(kA, id));
  const auto overdue = table.take_overdue(99999);
  ASSERT_EQ(overdue.size(), 1u);
  EXPECT_EQ(overdue[0].msg_id, "01HZX9K3M4P7Q8R9S0T1V2W3XZ");
  EXPECT_EQ(table.pending(), 0u);
}

}  // namespace
}  // namespace fleetmcp::plugin
