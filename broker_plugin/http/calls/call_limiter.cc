#include "broker_plugin/http/calls/call_limiter.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace fleetmcp::http {
namespace {

struct Rate {
  double per_second;
  double burst;
  double headroom;  // tokens a read of an acting capability leaves: one call's, as far as the burst allows
};

Rate rate_of(const CapabilityConstraints& limits, LimitClaim claim) {
  const double rate = limits.rate_limit_rps > 0 ? limits.rate_limit_rps : 1;
  const double burst = std::max(1.0, rate);
  return {rate, burst, claim.leaves_headroom ? std::min(1.0, burst - 1.0) : 0.0};
}

// Brings `b` up to now_ms; 0 when it holds a token for the claim, else when it will.
int64_t refill(LimiterState::Bucket& b, const Rate& r, int64_t now_ms) {
  if (b.fresh) {
    b = LimiterState::Bucket{r.burst, now_ms, 0, false};
  } else {
    const double elapsed_s = static_cast<double>(std::max<int64_t>(0, now_ms - b.refilled_at_ms)) / 1000.0;
    b.tokens = std::min(r.burst, b.tokens + r.per_second * elapsed_s);
    b.refilled_at_ms = now_ms;
  }
  const double needed = 1.0 + r.headroom;
  if (b.tokens >= needed) return 0;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil((needed - b.tokens) * 1000.0 / r.per_second)));
}

}  // namespace

void ConcurrencySlot::release() {
  if (std::exchange(released_, true)) return;
  const auto state = owner_.lock();
  if (!state) return;
  std::lock_guard<std::mutex> lock(state->mutex);
  if (bucket_->in_flight > 0) --bucket_->in_flight;
}

LimitDecision CallLimiter::admit(const std::string& key, const CapabilityConstraints& limits, int64_t now_ms,
                             LimitClaim claim) {
  const Rate rate = rate_of(limits, claim);
  std::lock_guard<std::mutex> lock(state_->mutex);
  LimiterState::Bucket& b = state_->buckets[key];
  if (const int64_t wait = refill(b, rate, now_ms); wait > 0) return {false, wait};
  const int slots = std::max(1, limits.max_concurrency);
  const int usable = claim.leaves_headroom && slots >= 2 ? slots - 1 : slots;
  if (claim.hold_slot && b.in_flight >= usable) {
    // No completion time is known; one token interval is the soonest a retry could succeed anyway.
    return {false, std::clamp<int64_t>(static_cast<int64_t>(std::ceil(1000.0 / rate.per_second)), 10, 1000)};
  }
  b.tokens -= 1.0;
  LimitDecision a{true, 0, nullptr};
  if (claim.hold_slot) {
    ++b.in_flight;
    a.slot = std::make_shared<ConcurrencySlot>(state_, b);
  }
  return a;
}

int64_t CallLimiter::rate_retry_after_ms(const std::string& key, const CapabilityConstraints& limits, int64_t now_ms,
                                         LimitClaim claim) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return refill(state_->buckets[key], rate_of(limits, claim), now_ms);
}

size_t CallLimiter::in_flight(std::string_view key) const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  const auto it = state_->buckets.find(std::string(key));
  return it == state_->buckets.end() ? 0 : static_cast<size_t>(it->second.in_flight);
}

}  // namespace fleetmcp::http
