// The device's log: one line per event on stderr, "<UTC time> <LEVEL> node=<id> <event> <detail>".
// Journald and `fleetmcp-device 2>&1 | grep node=…` both read it; with --simulate the node= field
// is what tells a thousand nodes apart.
#pragma once

#include <optional>
#include <string_view>

namespace fleetmcp::device {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

std::optional<LogLevel> log_level_from_name(std::string_view name);  // debug, info, warn, error
void set_log_level(LogLevel level);
bool log_enabled(LogLevel level);

// `node_id` may be empty (process-wide events). `detail` is clamped to printable ASCII so a
// hostile payload can never forge or split log lines.
void log_event(LogLevel level, std::string_view node_id, std::string_view event,
               std::string_view detail = {});

inline void log_debug(std::string_view node, std::string_view event, std::string_view detail = {}) {
  if (log_enabled(LogLevel::kDebug)) log_event(LogLevel::kDebug, node, event, detail);
}
inline void log_info(std::string_view node, std::string_view event, std::string_view detail = {}) {
  log_event(LogLevel::kInfo, node, event, detail);
}
inline void log_warn(std::string_view node, std::string_view event, std::string_view detail = {}) {
  log_event(LogLevel::kWarn, node, event, detail);
}
inline void log_error(std::string_view node, std::string_view event, std::string_view detail = {}) {
  log_event(LogLevel::kError, node, event, detail);
}

}  // namespace fleetmcp::device
