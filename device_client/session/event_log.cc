#include "device_client/session/event_log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "common/base/error.h"

namespace fleetmcp::device {
namespace {

std::atomic<EventLogLevel> g_level{EventLogLevel::kInfo};

std::string_view level_name(EventLogLevel level) {
  switch (level) {
    case EventLogLevel::kDebug: return "DEBUG";
    case EventLogLevel::kInfo: return "INFO";
    case EventLogLevel::kWarn: return "WARN";
    case EventLogLevel::kError: return "ERROR";
  }
  return "INFO";
}

// 2025-11-22T08:30:00.123Z
std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms % 1000));
  return buf;
}

}  // namespace

std::optional<EventLogLevel> log_level_from_name(std::string_view name) {
  if (name == "debug") return EventLogLevel::kDebug;
  if (name == "info") return EventLogLevel::kInfo;
  if (name == "warn" || name == "warning") return EventLogLevel::kWarn;
  if (name == "error") return EventLogLevel::kError;
  return std::nullopt;
}

void set_log_level(EventLogLevel level) { g_level.store(level); }

bool log_enabled(EventLogLevel level) { return level >= g_level.load(std::memory_order_relaxed); }

void log_event(EventLogLevel level, std::string_view node_id, std::string_view event,
               std::string_view detail) {
  if (!log_enabled(level)) return;
  std::string line = utc_timestamp();
  line += ' ';
  line += level_name(level);
  if (!node_id.empty()) {
    line += " node=";
    line += ascii_clamp(node_id, 64);
  }
  line += ' ';
  line += ascii_clamp(event, 64);
  if (!detail.empty()) {
    line += ' ';
    line += ascii_clamp(detail, 2048);
  }
  line += '\n';
  // One fwrite per line: stdio locks the stream, so lines from different threads never interleave.
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace fleetmcp::device
