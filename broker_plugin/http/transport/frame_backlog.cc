#include "broker_plugin/http/transport/frame_backlog.h"

namespace fleetmcp::http {

bool FrameBacklog::admit() {
  if (behind() + 1 > limit_) return false;
  ++queued_counted_;
  return true;
}

void FrameBacklog::written(size_t bytes, bool counted) {
  written_total_ += bytes;
  if (!counted) return;
  if (queued_counted_ > 0) --queued_counted_;
  unacked_ends_.push_back(written_total_);
}

void FrameBacklog::observe(uint64_t unacked, size_t queued, Clock::time_point now) {
  const uint64_t acked = unacked > written_total_ ? 0 : written_total_ - unacked;
  if (acked > acked_total_ || (unacked == 0 && queued == 0)) progress_at_ = now;
  if (acked > acked_total_) acked_total_ = acked;
  while (!unacked_ends_.empty() && unacked_ends_.front() <= acked_total_) unacked_ends_.pop_front();
}

bool FrameBacklog::idle(Clock::time_point now, std::chrono::milliseconds timeout) const {
  return timeout.count() > 0 && now - progress_at_ >= timeout;
}

}  // namespace fleetmcp::http
