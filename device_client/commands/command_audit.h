// The device's own audit of the commands it ran (Doc 05 §2.2 logs.get_recent_audit_logs, read by
// the logs.audit kind): per command, when it arrived, which call (the msg_id the broker gave it),
// what (cap_id and verb), the outcome (ok or the envelope code) and how long it took. Never
// argument values or results: the cmd's arguments may hold secrets, and the broker's audit log
// already says who called (docs/protocol.md D30).
//
// Actuations are kept apart from reads: a call that changes something (a set or invoke of a
// capability that is not read_only) goes to its own ring, so a flood of cheap reads, audited
// themselves, cannot push "who changed pin 17 an hour ago" out (issue 33 item 6). Pages merge both
// rings newest first by seq, which orders every entry of the node.
//
// Bounded: at most `capacity` reads and `capacity` actuations in memory, and on disk (optional) two
// files of at most `capacity` lines per ring: `file` (reads) and `file.actions` (actuations) are
// appended to, and when one holds `capacity` lines it becomes `<it>.1` (replacing the previous one)
// and a new one starts. A line is under 200 bytes, so the default capacity of 500 costs at most
// ~200 KB of RAM and ~400 KB of SD card. At start the newest `capacity` entries of each ring's two
// files are read back; a torn last line is skipped.
//
// Off (capacity 0) until a logs.audit capability configures it: a node that cannot read its audit
// keeps none, and `record` then costs one atomic load.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/registry/kinds.h"

namespace fleetmcp::device {

struct AuditEntry {
  uint64_t seq = 0;  // 1, 2, … per node, kept across restarts through the file
  int64_t received_ms = 0;  // Unix ms
  std::string msg_id, cap_id, verb;
  std::string outcome;  // "ok" or an E_… code name
  int64_t duration_ms = 0;
  bool acts = false;  // a set or invoke of a capability that is not read_only (is_actuation)
};

// Whether a call of `verb` on a capability of `safety_class` changes something: the rule of the
// plugin's readOnlyHint (a read verb, or a read_only capability, changes nothing).
bool is_actuation(SafetyClass safety_class, std::string_view verb);

class CommandAudit {
 public:
  static constexpr size_t kDefaultCapacity = 500;
  static constexpr size_t kMaxCapacity = 10000;

  CommandAudit() = default;
  ~CommandAudit();
  CommandAudit(const CommandAudit&) = delete;
  CommandAudit& operator=(const CommandAudit&) = delete;

  // Turns the audit on, once; `file` empty keeps it in memory only. Reads back what the files
  // hold. Throws Error(kInternal) naming the file when it cannot be opened for appending.
  void configure(size_t capacity, std::string file);
  bool enabled() const { return capacity_.load(std::memory_order_acquire) != 0; }
  size_t capacity() const { return capacity_.load(std::memory_order_acquire); }  // per ring
  size_t most_retained() const { return 2 * capacity(); }  // both rings full

  // Any thread. Assigns the entry's seq; entry.acts chooses the ring. A failed disk write keeps the
  // entry in memory.
  void record(AuditEntry entry);

  struct Page {
    std::vector<AuditEntry> entries;  // newest first
    std::optional<uint64_t> next_before;  // seq to continue below; nullopt on the last page
    size_t retained = 0;  // in both rings
  };
  // Entries of both rings with seq < `before` (all when nullopt), newest first, at most `limit`.
  Page newest_first(std::optional<uint64_t> before, size_t limit) const;

  // One line of the file, and back (nullopt for a line that is not one: a torn write).
  static std::string to_line(const AuditEntry& e);
  static std::optional<AuditEntry> from_line(std::string_view line);

 private:
  // One ring: its entries and, when the audit has a file, the file it appends to.
  struct Ring {
    std::deque<AuditEntry> entries;  // oldest first
    std::string file;
    int fd = -1;
    size_t lines_in_file = 0;
  };
  static void load(Ring& ring, bool acts, size_t capacity);
  static void read_file(const std::string& path, bool acts, std::deque<AuditEntry>& into);
  static Status open(Ring& ring);
  static void append(Ring& ring, const AuditEntry& entry, size_t capacity);

  mutable std::mutex mutex_;
  std::atomic<size_t> capacity_{0};
  Ring reads_, actions_;
  uint64_t next_seq_ = 1;
};

}  // namespace fleetmcp::device
