// A Scheduler for unit tests: nothing runs until the test says so. run() does the posted work;
// advance() moves a fake clock and fires the timers that come due, in order. Single-threaded.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>

#include "broker_plugin/http/transport/exchange.h"

namespace fleetmcp::http::testing {

class ManualScheduler : public Scheduler, public std::enable_shared_from_this<ManualScheduler> {
 public:
  void post(std::function<void()> fn) override { posted_.push_back(std::move(fn)); }
  std::unique_ptr<Timer> after(std::chrono::milliseconds delay, std::function<void()> fn) override;

  // Runs posted work until none is left; returns how many ran.
  size_t run();
  // Moves the clock forward, firing due timers (and the work they post) as it goes.
  void advance(std::chrono::milliseconds by);
  int64_t now_ms() const { return now_ms_; }
  // Drops all pending work unrun, as an io_context does when it is destroyed: whatever those
  // callbacks hold (often this scheduler) is released.
  void clear();
  size_t pending_timers() const { return timers_.size(); }

 private:
  struct Entry {
    std::function<void()> fn;
    std::shared_ptr<bool> cancelled;
  };
  int64_t now_ms_ = 0;
  uint64_t sequence_ = 0;
  std::deque<std::function<void()>> posted_;
  std::multimap<std::pair<int64_t, uint64_t>, Entry> timers_;
};

}  // namespace fleetmcp::http::testing
