// How often a refusal is written to the audit log (issue 17 item 8 for the HTTP front, issue 24
// item 6 for the broker plugin): refusals cost the refused party nothing, so without a bound a
// client sending bad tokens, or a node sending stale cmd_acks, in a loop fills the disk. Per key
// (what was refused, of whom, why) at most one line per interval; the refusals between two lines
// are not lost but counted, and the next line says how many it stands for. That next line is the
// next refusal of the key, or, when the interval ends first, the last refusal counted, which the
// owner takes from ended() (issue 33 item 8: a burst shorter than the interval is written whole
// by then) and holds meanwhile as a `Held` (the line to write). /metrics counts every refusal.
// An interval of 0 writes every refusal. Thread-safe; a hash lookup.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace fleetmcp {

template <typename Held = std::monostate>
class RefusalThrottle {
 public:
  static constexpr size_t kMaxKeys = 4096;  // then the table starts over (a line per key again)

  explicit RefusalThrottle(int64_t interval_ms) : interval_ms_(interval_ms) {}

  // The number of refusals of `key` not written since its last line, when this one is to be
  // written; nothing when it is to be counted only (and `refusal` held as the key's last).
  std::optional<uint64_t> admit(const std::string& key, int64_t now_ms, Held refusal = {}) {
    if (interval_ms_ <= 0) return 0;
    std::lock_guard<std::mutex> lock(mutex_);
    if (slots_.size() >= kMaxKeys && !slots_.contains(key)) slots_.clear();
    Slot& slot = slots_[key];
    if (now_ms < slot.next_line_ms) {
      ++slot.unwritten;
      slot.last = std::move(refusal);
      next_due_ms_ = std::min(next_due_ms_, slot.next_line_ms);
      return std::nullopt;
    }
    slot.next_line_ms = now_ms + interval_ms_;
    return std::exchange(slot.unwritten, 0);
  }

  struct Unwritten {
    uint64_t count;  // refusals not written, the last one included
    Held last;
  };
  // The refusals counted but not written of every key whose interval has ended by `now_ms`: each
  // is now written (its key's next interval starts). Keys with nothing pending are dropped. Cheap
  // when nothing is due.
  std::vector<Unwritten> ended(int64_t now_ms) {
    std::vector<Unwritten> due;
    std::lock_guard<std::mutex> lock(mutex_);
    if (now_ms < next_due_ms_) return due;
    next_due_ms_ = kNothingDue;
    for (auto it = slots_.begin(); it != slots_.end();) {
      Slot& slot = it->second;
      if (now_ms < slot.next_line_ms) {
        if (slot.unwritten > 0) next_due_ms_ = std::min(next_due_ms_, slot.next_line_ms);
        ++it;
      } else if (slot.unwritten > 0) {
        due.push_back({std::exchange(slot.unwritten, 0), std::exchange(slot.last, Held{})});
        slot.next_line_ms = now_ms + interval_ms_;
        ++it;
      } else {
        it = slots_.erase(it);  // idle: a new slot behaves the same
      }
    }
    return due;
  }

 private:
  static constexpr int64_t kNothingDue = std::numeric_limits<int64_t>::max();

  struct Slot {
    int64_t next_line_ms = 0;
    uint64_t unwritten = 0;
    Held last{};
  };
  const int64_t interval_ms_;
  std::mutex mutex_;
  std::unordered_map<std::string, Slot> slots_;
  int64_t next_due_ms_ = kNothingDue;  // the earliest interval end with refusals pending
};

}  // namespace fleetmcp
