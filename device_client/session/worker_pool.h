// The handler worker pool shared by every node of the process. Every handler call that may block
// runs here, never on Paho's callback threads, so a slow or hung handler cannot stall MQTT I/O and
// its deadline is still enforced by the TimerQueue (calls that cannot block run inline:
// ToolHandler::may_block).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fleetmcp::device {

class WorkerPool {
 public:
  using Job = std::function<void()>;

  explicit WorkerPool(size_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(Job job);
  // Blocks until no job is queued or running (tests, orderly shutdown).
  void wait_idle();
  // Drops queued jobs, waits up to `grace` for running ones. True when every thread was joined;
  // false when a handler is still stuck (the threads are then detached: the process is exiting).
  bool shutdown(std::chrono::milliseconds grace);

  size_t size() const { return threads_.size(); }

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable job_ready_, idle_;
  std::deque<Job> jobs_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace fleetmcp::device
