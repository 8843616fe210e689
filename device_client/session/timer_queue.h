// One thread that runs short tasks at given times: telemetry ticks, manifest refreshes, reconnect
// attempts and command deadlines for every node of the process. A thousand simulated nodes share
// it, so no node owns a thread of its own.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace fleetmcp::device {

class TimerQueue {
 public:
  using Clock = std::chrono::steady_clock;
  using Task = std::function<void()>;
  // Identifies a scheduled task for cancel(); ordered by time, then by scheduling order.
  using TimerId = std::pair<Clock::time_point, uint64_t>;

  TimerQueue();
  ~TimerQueue();
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  TimerId at(Clock::time_point when, Task task);
  TimerId after(std::chrono::milliseconds delay, Task task) { return at(Clock::now() + delay, std::move(task)); }
  // True when the task was still pending (it will not run).
  bool cancel(const TimerId& id);
  // Runs no further task and joins the thread. Tasks still pending are dropped.
  void stop();

  size_t pending() const;

 private:
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<TimerId, Task> tasks_;
  // When the thread wakes by itself: max() while it waits for any task, min() while it is awake
  // (it looks at tasks_ again before it sleeps). A task due later than this needs no wake-up.
  Clock::time_point wakes_at_ = Clock::time_point::min();
  uint64_t next_seq_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace fleetmcp::device
