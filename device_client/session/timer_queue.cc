#include "device_client/session/timer_queue.h"

#include <exception>

#include "device_client/session/event_log.h"

namespace fleetmcp::device {

TimerQueue::TimerQueue() : thread_([this] { run(); }) {}

TimerQueue::~TimerQueue() { stop(); }

TimerQueue::TimerId TimerQueue::at(Clock::time_point when, Task task) {
  std::lock_guard lock(mutex_);
  TimerId id{when, next_seq_++};
  tasks_.emplace(id, std::move(task));
  // Only when the thread would otherwise sleep past it: a command's deadline, added and cancelled
  // once per command, is later than the wake-up already set, and waking the thread for it cost a
  // context switch per command.
  if (when < wakes_at_) wake_.notify_one();
  return id;
}

bool TimerQueue::cancel(const TimerId& id) {
  std::lock_guard lock(mutex_);
  return tasks_.erase(id) != 0;
}

void TimerQueue::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    tasks_.clear();
  }
  wake_.notify_one();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

size_t TimerQueue::pending() const {
  std::lock_guard lock(mutex_);
  return tasks_.size();
}

void TimerQueue::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (tasks_.empty()) {
      wakes_at_ = Clock::time_point::max();
      wake_.wait(lock);
      wakes_at_ = Clock::time_point::min();
      continue;
    }
    auto first = tasks_.begin();
    // A copy, not a reference into the map: wait_until reads the deadline again after waking,
    // and by then cancel() or stop() may have erased the node (found by ASan).
    const Clock::time_point due = first->first.first;
    if (due > Clock::now()) {
      wakes_at_ = due;
      wake_.wait_until(lock, due);
      wakes_at_ = Clock::time_point::min();
      continue;
    }
    Task task = std::move(first->second);
    tasks_.erase(first);
    lock.unlock();
    // The task runner is a boundary: a failing task must not take every node's timers down.
    try {
      task();
    } catch (const std::exception& e) {
      log_error("", "timer.task_failed", e.what());
    }
    lock.lock();
  }
}

}  // namespace fleetmcp::device
