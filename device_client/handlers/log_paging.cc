#include <algorithm>
#include <charconv>
#include <cstring>

#include "device_client/backends/log_source.h"

namespace fleetmcp::device {
namespace {

constexpr std::string_view kLevels[] = {"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"};

std::string_view field(const JournalFields& f, std::string_view key) {
  const auto it = f.find(key);
  return it == f.end() ? std::string_view() : std::string_view(it->second);
}

// Cuts at most `max` bytes without splitting a UTF-8 sequence, and replaces control characters
// other than tab, so a log line can never break the JSON reader of an agent's terminal.
std::string bounded_message(std::string_view m, size_t max) {
  if (m.size() > max) {
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(m[cut]) & 0xC0) == 0x80) --cut;
    m = m.substr(0, cut);
  }
  std::string out(m);
  for (size_t i = 0; i < out.size();) {
    const auto c = static_cast<unsigned char>(out[i]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t') out[i] = ' ';
      ++i;
      continue;
    }
    // A well-formed multi-byte sequence is kept; any other byte becomes '?' (JSON must be UTF-8).
    const size_t len = c >= 0xF5 ? 0 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    bool ok = len > 0 && i + len <= out.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(out[i + k]) & 0xC0) == 0x80;
    if (!ok) {
      out[i++] = '?';
      continue;
    }
    i += len;
  }
  return out;
}

}  // namespace

std::string_view level_name(int priority) { return kLevels[std::clamp(priority, 0, 7)]; }

std::optional<int> priority_from_level(std::string_view level) {
  for (int i = 0; i < 8; ++i) {
    if (kLevels[i] == level) return i;
  }
  return std::nullopt;
}

LogEntry log_entry_from_fields(const JournalFields& f) {
  LogEntry e;
  const std::string_view ts = field(f, "__REALTIME_TIMESTAMP");
  int64_t us = 0;
  std::from_chars(ts.data(), ts.data() + ts.size(), us);
  e.ts_ms = us / 1000;
  const std::string_view prio = field(f, "PRIORITY");
  if (prio.size() == 1 && prio[0] >= '0' && prio[0] <= '7') e.priority = prio[0] - '0';
  e.unit = std::string(field(f, "_SYSTEMD_UNIT"));
  if (e.unit.empty()) e.unit = std::string(field(f, "SYSLOG_IDENTIFIER"));
  e.message = bounded_message(field(f, "MESSAGE"), kMaxMessage);
  return e;
}

std::vector<JournalFields> parse_journal_export(std::string_view text) {
  std::vector<JournalFields> out(1);
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    const std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.empty()) {
      if (!out.back().empty()) out.emplace_back();
      continue;
    }
    const size_t eq = line.find('=');
    if (eq != std::string_view::npos) {
      out.back()[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
      continue;
    }
    // Binary field: little-endian uint64 length, the bytes, a newline.
    if (at + 8 > text.size()) break;
    uint64_t len = 0;
    for (int i = 7; i >= 0; --i) len = (len << 8) | static_cast<unsigned char>(text[at + static_cast<size_t>(i)]);
    at += 8;
    if (len > text.size() - at) break;
    at += static_cast<size_t>(len) + 1;
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

bool log_entry_matches(const LogQuery& q, const LogEntry& e) {
  if (e.priority > q.max_priority) return false;
  if (q.since_ms && e.ts_ms < *q.since_ms) return false;
  if (q.until_ms && e.ts_ms > *q.until_ms) return false;
  if (!q.contains.empty() && e.message.find(q.contains) == std::string::npos) return false;
  if (!q.unit.empty() && e.unit != q.unit) return false;
  return true;
}

LogPage page_newest_first(const LogQuery& q, const std::function<std::optional<LogEntry>()>& previous) {
  LogPage page;
  int skipped = 0;
  for (size_t scanned = 0; scanned < kMaxScan; ++scanned) {
    std::optional<LogEntry> e = previous();
    if (!e) break;
    if (q.since_ms && e->ts_ms < *q.since_ms) break;
    if (!log_entry_matches(q, *e)) continue;
    if (skipped < q.offset) {
      ++skipped;
      continue;
    }
    if (static_cast<int>(page.entries.size()) == q.limit) {
      page.has_more = true;
      break;
    }
    page.entries.push_back(std::move(*e));
  }
  return page;
}

}  // namespace fleetmcp::device
