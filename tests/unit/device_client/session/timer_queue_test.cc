// TimerQueue (device_client/session/timer_queue.h): the one thread that runs every node's timers.
#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "device_client/session/timer_queue.h"

namespace fleetmcp::device {
namespace {

using namespace std::chrono_literals;

// Regression (scripts/test-sanitized.sh, docs/reliability.md): the thread waited on a reference
// to the earliest task's time inside the map; cancelling that task while the thread waited freed
// it under the wait (heap-use-after-free). Cancelling the earliest task must leave the queue
// working: a later task still runs, the cancelled one never does.
TEST(TimerQueue, CancellingTheTaskTheThreadWaitsForKeepsTheQueueWorking) {
  TimerQueue queue;
  std::promise<void> ran_later;
  bool cancelled_ran = false;
  for (int round = 0; round < 20; ++round) {
    const auto id = queue.after(1h, [&] { cancelled_ran = true; });
    std::this_thread::sleep_for(1ms);  // let the thread start waiting for it (not an assertion)
    EXPECT_TRUE(queue.cancel(id));
  }
  queue.after(0ms, [&] { ran_later.set_value(); });
  // A generous bound only so a broken queue fails instead of hanging the suite.
  EXPECT_EQ(ran_later.get_future().wait_for(60s), std::future_status::ready);
  EXPECT_FALSE(cancelled_ran);
  EXPECT_EQ(queue.pending(), 0u);
}

// The thread is woken only for a task due before the time it already wakes at. Whatever the
// order of scheduling, each task still runs when due: a later one after an earlier one, an
// earlier one while the thread sleeps for a later one (or for none).
TEST(TimerQueue, EveryTaskRunsWhateverTheOrderItWasScheduledIn) {
  TimerQueue queue;
  std::promise<void> first, second, third;
  queue.after(1h, [] {});                                // the thread sleeps for this one
  queue.after(2h, [] {});                                // later: no wake-up needed
  queue.after(20ms, [&] { first.set_value(); });         // earlier: must wake the thread
  EXPECT_EQ(first.get_future().wait_for(60s), std::future_status::ready);
  queue.after(30ms, [&] { second.set_value(); });
  queue.after(10ms, [&] { third.set_value(); });
  EXPECT_EQ(third.get_future().wait_for(60s), std::future_status::ready);
  EXPECT_EQ(second.get_future().wait_for(60s), std::future_status::ready);
  EXPECT_EQ(queue.pending(), 2u);
}

TEST(TimerQueue, StopDropsPendingTasks) {
  TimerQueue queue;
  bool ran = false;
  queue.after(1h, [&] { ran = true; });
  queue.stop();
  EXPECT_EQ(queue.pending(), 0u);
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace fleetmcp::device
