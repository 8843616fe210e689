// The gateway's per-capability limits (docs/protocol.md §7, RFC-0001 constraints): a token bucket of
// rate_limit_rps (burst: one second's worth, at least one call) and at most max_concurrency calls
// in flight. A refusal is immediate and says when to retry; nothing ever queues. Thread-safe.
//
// Every caller shares a capability's bucket: the device declared what it takes in all. Reads of a
// capability that also acts leave headroom to the acting calls (issue 33, item 5): a read never
// takes the bucket's last token nor, where there are two or more, the last concurrency slot, so
// a flood of reads (a read-only token is the weakest credential) cannot make a confirmed set or
// invoke fail. docs/http-front.md "Rate limits" has the design and what it leaves open.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/protocol/manifest.h"

namespace fleetmcp::http {

struct LimiterState {
  struct Bucket {
    double tokens = 0;
    int64_t refilled_at_ms = 0;
    int in_flight = 0;
    bool fresh = true;
  };
  std::mutex mutex;
  // Never erased: a bucket stays where it is (an unordered_map keeps its elements in place when
  // it grows), so a slot can point at its own.
  std::unordered_map<std::string, Bucket> buckets;
};

// A call in flight; releases its concurrency slot when destroyed. A slot may outlive the limiter
// (a completion the core still holds when the front shuts down): it then releases nothing.
class ConcurrencySlot {
 public:
  ConcurrencySlot(std::weak_ptr<LimiterState> owner, LimiterState::Bucket& bucket)
      : owner_(std::move(owner)), bucket_(&bucket) {}
  ConcurrencySlot(const ConcurrencySlot&) = delete;
  ConcurrencySlot& operator=(const ConcurrencySlot&) = delete;
  ~ConcurrencySlot() { release(); }
  void release();

 private:
  std::weak_ptr<LimiterState> owner_;
  LimiterState::Bucket* bucket_;  // in owner_'s map, valid while owner_ is alive
  bool released_ = false;
};

// What the limiter decides for one call: admitted (holding its slot, when it asked for one), or when to retry.
struct LimitDecision {
  bool admitted = false;
  int64_t retry_after_ms = 0;      // when refused
  std::shared_ptr<ConcurrencySlot> slot;  // when admitted and the call holds a slot
};

// What one call asks of its capability's limits.
struct LimitClaim {
  // False for calls that only spend a rate token (a metrics stream is one request to the device,
  // then fan-out).
  bool hold_slot = true;
  // A read of a capability that also acts: it leaves the last token and slot to acting calls.
  bool leaves_headroom = false;
};

class CallLimiter {
 public:
  // `key` names the capability (node_id/cap_id).
  LimitDecision admit(const std::string& key, const CapabilityConstraints& limits, int64_t now_ms, LimitClaim claim = {});
  // The rate bucket's verdict on `claim` now, spending nothing: 0 when it holds the token, else
  // when to retry. Asked before anyone is asked to confirm a call (call_gate.h). Concurrency is not
  // looked at: a slot turns over within a round trip, long before a confirmation comes back.
  int64_t rate_retry_after_ms(const std::string& key, const CapabilityConstraints& limits, int64_t now_ms,
                              LimitClaim claim = {});
  size_t in_flight(std::string_view key) const;

 private:
  std::shared_ptr<LimiterState> state_ = std::make_shared<LimiterState>();
};

}  // namespace fleetmcp::http
