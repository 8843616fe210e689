// cmd msg_id -> cmd_ack (docs/protocol.md §4: msg_id is the idempotency key). A repeated cmd gets the very
// same cmd_ack bytes and never a second execution; a repeat that arrives while the first is still
// running is remembered and answered with the same ack when it completes. Bounded in entries and
// in age, so a node under a flood of fresh msg_ids keeps a fixed footprint.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/base/string_map.h"

namespace fleetmcp::device {

class IdempotencyCache {
 public:
  IdempotencyCache(size_t max_entries = 256, int64_t ttl_ms = 120'000)
      : max_entries_(max_entries), ttl_ms_(ttl_ms) {}

  enum class Seen { kNew, kInFlight, kDone };
  struct Lookup {
    Seen seen = Seen::kNew;
    std::string ack;  // kDone: the cached cmd_ack
  };

  // kNew: the caller now owns msg_id and must call complete() or forget(). kInFlight: a duplicate
  // of a running call, counted so complete() reports it. kDone: replay `ack`.
  Lookup begin(std::string_view msg_id, int64_t now_ms);
  // Stores the ack; returns how many duplicates arrived meanwhile (each gets the ack too).
  int complete(std::string_view msg_id, std::string ack, int64_t now_ms);
  // Drops an entry whose outcome must not be replayed (E_RATE_LIMITED: nothing ran, so a retry
  // after retry_after_ms deserves a fresh decision). Returns the duplicates counted meanwhile.
  int forget(std::string_view msg_id);

  size_t size() const;

 private:
  struct Entry {
    bool done = false;
    int duplicates = 0;
    int64_t stored_at_ms = 0;
    std::string ack;
  };
  void evict(int64_t now_ms);

  const size_t max_entries_;
  const int64_t ttl_ms_;
  mutable std::mutex mutex_;
  StringMap<Entry> entries_;  // by msg_id, looked up without a copy
  std::deque<std::pair<int64_t, std::string>> order_;  // (stored_at_ms, msg_id), oldest first
};

}  // namespace fleetmcp::device
