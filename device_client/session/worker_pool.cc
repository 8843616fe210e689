#include "device_client/session/worker_pool.h"

#include <exception>

#include "device_client/session/event_log.h"

namespace fleetmcp::device {

WorkerPool::WorkerPool(size_t threads) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() { shutdown(std::chrono::milliseconds(2000)); }

void WorkerPool::submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    jobs_.push_back(std::move(job));
  }
  job_ready_.notify_one();
}

void WorkerPool::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return jobs_.empty() && running_ == 0; });
}

bool WorkerPool::shutdown(std::chrono::milliseconds grace) {
  std::unique_lock lock(mutex_);
  if (threads_.empty()) return true;
  stopping_ = true;
  jobs_.clear();
  job_ready_.notify_all();
  const bool drained = idle_.wait_for(lock, grace, [this] { return running_ == 0; });
  lock.unlock();
  for (auto& t : threads_) {
    if (drained) t.join();
    else t.detach();
  }
  threads_.clear();
  return drained;
}

void WorkerPool::work() {
  std::unique_lock lock(mutex_);
  while (true) {
    job_ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    ++running_;
    lock.unlock();
    // Jobs report their own failures (the dispatcher turns them into cmd_acks); this is the
    // last line so one bad job cannot kill a worker shared by every node.
    try {
      job();
    } catch (const std::exception& e) {
      log_error("", "worker.job_failed", e.what());
    }
    lock.lock();
    --running_;
    if (running_ == 0 && jobs_.empty()) idle_.notify_all();
  }
}

}  // namespace fleetmcp::device
