// The device's log: one line per event on stderr, "<UTC time> <LEVEL> node=<id> <event> <detail>".
// Journald and `fleetmcp-device 2>&1 | grep node=…` both read it; with --simulate the node= field
// is what tells a thousand nodes apart.
#pragma once

#include <optional>
#include <string_view>

namespace fleetmcp::device {

// The threshold of this log (--log-level); not the broker's mosquitto log levels (plugin::LogLevel).
enum class EventLogLevel { kDebug, kInfo, kWarn, kError };

std::optional<EventLogLevel> log_level_from_name(std::string_view name);  // debug, info, warn, error
void set_log_level(EventLogLevel level);
bool log_enabled(EventLogLevel level);

// `node_id` may be empty (process-wide events). `detail` is clamped to printable ASCII so a
// hostile payload can never forge or split log lines.
void log_event(EventLogLevel level, std::string_view node_id, std::string_view event,
               std::string_view detail = {});

inline void log_debug(std::string_view node, std::string_view event, std::string_view detail = {}) {
  if (log_enabled(EventLogLevel::kDebug)) log_event(EventLogLevel::kDebug, node, event, detail);
}
inline void log_info(std::string_view node, std::string_view event, std::string_view detail = {}) {
  log_event(EventLogLevel::kInfo, node, event, detail);
}
inline void log_warn(std::string_view node, std::string_view event, std::string_view detail = {}) {
  log_event(EventLogLevel::kWarn, node, event, detail);
}
inline void log_error(std::string_view node, std::string_view event, std::string_view detail = {}) {
  log_event(EventLogLevel::kError, node, event, detail);
}

}  // namespace fleetmcp::device
