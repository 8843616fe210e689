// How often a refusal is written to the audit log (issue 17 item 8 for the HTTP front, issue 24
// item 6 for the broker plugin): refusals cost the refused party nothing, so without a bound a
// client sending bad tokens, or a node sending stale cmd_acks, in a loop fills the disk. Per key
// (what was refused, of whom, why) at most one line per interval; the refusals between two lines
// are not lost but counted, and the next line says how many it stands for. /metrics counts every
// refusal. An interval of 0 writes every refusal. Thread-safe; a hash lookup.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace fleetmcp {

class RefusalThrottle {
 public:
  static constexpr size_t kMaxKeys = 4096;  // then the table starts over (a line per key again)

  explicit RefusalThrottle(int64_t interval_ms) : interval_ms_(interval_ms) {}

  // The number of refusals of `key` not written since its last line, when this one is to be
  // written; nothing when it is to be counted only.
  std::optional<uint64_t> admit(const std::string& key, int64_t now_ms);

 private:
  struct Slot {
    int64_t next_line_ms = 0;
    uint64_t unwritten = 0;
  };
  const int64_t interval_ms_;
  std::mutex mutex_;
  std::unordered_map<std::string, Slot> slots_;
};

}  // namespace fleetmcp
