// logs.journal's sources: the systemd journal through sd-journal on a device (sd_journal_source.cc),
// a synthetic journal on --simulate nodes. Both page the same way: newest first, filtered, offset
// and limit, scanning at most kMaxScan entries so one call stays bounded on a Pi Zero.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"

namespace fleetmcp::device {

struct LogEntry {
  int64_t ts_ms = 0;
  int priority = 6;  // syslog: 0 emerg … 7 debug
  std::string unit;
  std::string message;  // at most kMaxMessage bytes, cut at a UTF-8 boundary
};

struct LogQuery {
  int max_priority = 7;  // the "level" argument: least severe level returned
  std::optional<int64_t> since_ms, until_ms;
  std::string contains;
  std::string unit;  // "" = every unit of the capability (logs.journal.get.input@1.1.0)
  int limit = 100, offset = 0;
};

struct LogPage {
  std::vector<LogEntry> entries;
  bool has_more = false;
};

inline constexpr size_t kMaxMessage = 2048;
inline constexpr size_t kMaxScan = 20000;

std::string_view level_name(int priority);            // "err"
std::optional<int> priority_from_level(std::string_view level);

// One journal entry's fields (MESSAGE, PRIORITY, _SYSTEMD_UNIT, SYSLOG_IDENTIFIER,
// __REALTIME_TIMESTAMP in µs) → LogEntry.
using JournalFields = std::map<std::string, std::string, std::less<>>;
LogEntry log_entry_from_fields(const JournalFields& fields);
// `journalctl -o export` text: one field per line, entries separated by blank lines; binary
// fields (name line, 64-bit little-endian length, data) are skipped. For recorded fixtures.
std::vector<JournalFields> parse_journal_export(std::string_view text);

bool log_entry_matches(const LogQuery& q, const LogEntry& e);
// `previous` yields entries newest first, nullopt at the start of the log. Stops at the first
// entry older than since_ms (the log is time-ordered), after kMaxScan entries, or one entry past
// the page (which sets has_more).
LogPage page_newest_first(const LogQuery& q, const std::function<std::optional<LogEntry>()>& previous);

class LogSource {
 public:
  virtual ~LogSource() = default;
  virtual Result<LogPage> query(const LogQuery& q) = 0;
};

// A deterministic journal of one entry per second for the last hour, ending now; messages are
// padded with '.' to `message_bytes` (at most kMaxMessage) when that is longer.
std::unique_ptr<LogSource> make_simulated_log_source(std::vector<std::string> units, size_t message_bytes = 0);
// Entries of the allow-listed units only (_SYSTEMD_UNIT matches); `journal_dirs` are checked for
// existence so a device without a journal answers failed_precondition instead of nothing.
std::unique_ptr<LogSource> make_sd_journal_source(std::vector<std::string> units,
                                                  std::vector<std::string> journal_dirs = {"/var/log/journal",
                                                                                           "/run/log/journal"});

}  // namespace fleetmcp::device
