#include "broker_plugin/http/calls/call_limiter.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace fleetmcp::http {

void ConcurrencySlot::release() {
  if (std::exchange(released_, true)) return;
  const auto state = owner_.lock();
  if (!state) return;
  std::lock_guard<std::mutex> lock(state->mutex);
  if (bucket_->in_flight > 0) --bucket_->in_flight;
}

Admission CallLimiter::admit(const std::string& key, const CapabilityConstraints& limits, int64_t now_ms,
                             bool hold_slot) {
  const double rate = limits.rate_limit_rps > 0 ? limits.rate_limit_rps : 1;
  const double burst = std::max(1.0, rate);
  std::lock_guard<std::mutex> lock(state_->mutex);
  LimiterState::Bucket& b = state_->buckets[key];
  if (b.fresh) {
    b = LimiterState::Bucket{burst, now_ms, 0, false};
  } else {
    b.tokens = std::min(burst, b.tokens + rate * static_cast<double>(std::max<int64_t>(0, now_ms - b.refilled_at_ms)) / 1000.0);
    b.refilled_at_ms = now_ms;
  }
  if (b.tokens < 1.0) {
    return {false, std::max<int64_t>(1, static_cast<int64_t>(std::ceil((1.0 - b.tokens) * 1000.0 / rate)))};
  }
  if (hold_slot && b.in_flight >= std::max(1, limits.max_concurrency)) {
    // No completion time is known; one token interval is the soonest a retry could succeed anyway.
    return {false, std::clamp<int64_t>(static_cast<int64_t>(std::ceil(1000.0 / rate)), 10, 1000)};
  }
  b.tokens -= 1.0;
  Admission a{true, 0, nullptr};
  if (hold_slot) {
    ++b.in_flight;
    a.slot = std::make_shared<ConcurrencySlot>(state_, b);
  }
  return a;
}

size_t CallLimiter::in_flight(std::string_view key) const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  const auto it = state_->buckets.find(std::string(key));
  return it == state_->buckets.end() ? 0 : static_cast<size_t>(it->second.in_flight);
}

}  // namespace fleetmcp::http
