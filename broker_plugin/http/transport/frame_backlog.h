// How far behind a streaming client is, measured the way RFC-0009 §6/§7 words it: a frame counts
// as delivered once the client's TCP has acknowledged its last byte (not when the kernel took it),
// and "read progress" is the acknowledged byte count moving. The socket code feeds it the byte
// counts (SIOCOUTQ); this class only does the arithmetic, so the unit tests drive it directly.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>

namespace fleetmcp::http {

class FrameBacklog {
 public:
  using Clock = std::chrono::steady_clock;

  FrameBacklog(size_t limit, Clock::time_point now) : limit_(limit), progress_at_(now) {}

  // A counted frame is about to be queued. False (and nothing recorded) when the client would be
  // more than `limit` counted frames behind.
  bool admit();
  // `bytes` of a frame went to the kernel (counted: one that admit() let in).
  void written(size_t bytes, bool counted);
  // The kernel still holds `unacked` bytes (SIOCOUTQ); `queued` frames wait in user space.
  void observe(uint64_t unacked, size_t queued, Clock::time_point now);

  size_t behind() const { return queued_counted_ + unacked_ends_.size(); }
  // No read progress for `timeout` while something was outstanding.
  bool idle(Clock::time_point now, std::chrono::milliseconds timeout) const;

 private:
  size_t limit_;
  size_t queued_counted_ = 0;       // admitted, not yet written
  uint64_t written_total_ = 0;      // bytes handed to the kernel so far
  uint64_t acked_total_ = 0;        // of which the client acknowledged
  std::deque<uint64_t> unacked_ends_;  // end offsets of written counted frames not yet acked
  Clock::time_point progress_at_;
};

}  // namespace fleetmcp::http
