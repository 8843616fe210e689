// max_concurrency of one capability (RFC-0001 constraints, docs/protocol.md §4). A slot is held until the
// handler really returns, not until its deadline: a hung handler keeps its slot, so a stuck
// camera cannot pile up more stuck calls on the shared worker pool.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>

namespace fleetmcp::device {

class CapabilityLimit {
 public:
  explicit CapabilityLimit(int max_concurrency) : max_(max_concurrency) {}

  struct Admission {
    bool admitted = false;
    int64_t retry_after_ms = 0;  // when refused: a hint for E_RATE_LIMITED
  };

  // `deadline_ms` and `now_ms` are on one monotonic clock. The hint is the time until the
  // earliest running call reaches its deadline (when it has either finished or been reported
  // late), at least 10 ms.
  Admission try_acquire(int64_t deadline_ms, int64_t now_ms);
  void release(int64_t deadline_ms);
  int in_use() const;

 private:
  const int max_;
  mutable std::mutex mutex_;
  std::multiset<int64_t> deadlines_;  // one per running call
};

}  // namespace fleetmcp::device
