// The device's own audit of the commands it ran (Doc 05 §2.2 logs.get_recent_audit_logs, read by
// the logs.audit kind): per command, when it arrived, which call (the msg_id the broker gave it),
// what (cap_id and verb), the outcome (ok or the envelope code) and how long it took. Never
// argument values or results: the cmd's arguments may hold secrets, and the broker's audit log
// already says who called (docs/protocol.md D30).
//
// Bounded: at most `capacity` entries in memory, and on disk (optional) two files of at most
// `capacity` lines each: `file` is appended to, and when it holds `capacity` lines it becomes
// `file.1` (replacing the previous one) and a new `file` starts. A line is under 200 bytes, so
// the default capacity of 500 costs at most ~100 KB of RAM and ~200 KB of SD card. At start the
// newest `capacity` entries of both files are read back; a torn last line is skipped.
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

namespace fleetmcp::device {

struct AuditEntry {
  uint64_t seq = 0;  // 1, 2, … per node, kept across restarts through the file
  int64_t received_ms = 0;  // Unix ms
  std::string msg_id, cap_id, verb;
  std::string outcome;  // "ok" or an E_… code name
  int64_t duration_ms = 0;
};

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
  size_t capacity() const { return capacity_.load(std::memory_order_acquire); }

  // Any thread. Assigns the entry's seq. A failed disk write keeps the entry in memory.
  void record(AuditEntry entry);

  struct Page {
    std::vector<AuditEntry> entries;  // newest first
    std::optional<uint64_t> next_before;  // seq to continue below; nullopt on the last page
    size_t retained = 0;
  };
  // Entries with seq < `before` (all when nullopt), newest first, at most `limit`.
  Page newest_first(std::optional<uint64_t> before, size_t limit) const;

  // One line of the file, and back (nullopt for a line that is not one: a torn write).
  static std::string to_line(const AuditEntry& e);
  static std::optional<AuditEntry> from_line(std::string_view line);

 private:
  void load_locked(const std::string& path);
  void open_locked();
  void rotate_locked();

  mutable std::mutex mutex_;
  std::atomic<size_t> capacity_{0};
  std::deque<AuditEntry> entries_;  // oldest first
  uint64_t next_seq_ = 1;
  std::string file_;
  int fd_ = -1;
  size_t lines_in_file_ = 0;
};

}  // namespace fleetmcp::device
