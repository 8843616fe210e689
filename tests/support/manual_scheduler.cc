#include "tests/support/manual_scheduler.h"

namespace fleetmcp::http::testing {
namespace {

class ManualTimer final : public Timer {
 public:
  explicit ManualTimer(std::shared_ptr<bool> cancelled) : cancelled_(std::move(cancelled)) {}
  ~ManualTimer() override { *cancelled_ = true; }

 private:
  std::shared_ptr<bool> cancelled_;
};

}  // namespace

std::unique_ptr<Timer> ManualScheduler::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  auto cancelled = std::make_shared<bool>(false);
  timers_.emplace(std::make_pair(now_ms_ + delay.count(), sequence_++), Entry{std::move(fn), cancelled});
  return std::make_unique<ManualTimer>(cancelled);
}

size_t ManualScheduler::run() {
  size_t ran = 0;
  while (!posted_.empty()) {
    auto fn = std::move(posted_.front());
    posted_.pop_front();
    fn();
    ++ran;
  }
  return ran;
}

void ManualScheduler::clear() {
  // Destroying a callback may post or schedule again: repeat until nothing is left.
  while (!posted_.empty() || !timers_.empty()) {
    std::deque<std::function<void()>> posted;
    std::multimap<std::pair<int64_t, uint64_t>, Entry> timers;
    posted.swap(posted_);
    timers.swap(timers_);
  }
}

void ManualScheduler::advance(std::chrono::milliseconds by) {
  const int64_t until = now_ms_ + by.count();
  run();
  while (!timers_.empty() && timers_.begin()->first.first <= until) {
    auto node = timers_.extract(timers_.begin());
    now_ms_ = node.key().first;
    if (!*node.mapped().cancelled) node.mapped().fn();
    run();
  }
  now_ms_ = until;
}

}  // namespace fleetmcp::http::testing
