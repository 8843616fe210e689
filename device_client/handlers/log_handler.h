// logs.journal (Doc 05 logs.get_recent_app_logs / get_recent_audit_logs): one allow-listed log
// source per capability, e.g. `capability.app = logs.journal units=fleetmcp-device.service`.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "device_client/backends/log_source.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kLogsKind = "logs.journal";

class LogHandler : public ToolHandler {
 public:
  // `units`: the capability's allow-list, which a call's `unit` must be one of.
  LogHandler(std::unique_ptr<LogSource> source, std::vector<std::string> units)
      : ToolHandler(SafetyClass::kReadOnly, {"get"}), source_(std::move(source)), units_(std::move(units)) {}

  Result<json::Document> run(const ToolCall& call) override;

 private:
  const std::unique_ptr<LogSource> source_;  // sources are safe to call concurrently
  const std::vector<std::string> units_;
};

// The arguments of logs.journal get as a query; invalid_argument for bad timestamps.
Result<LogQuery> log_query_from(const json::Value& arguments);

}  // namespace fleetmcp::device
