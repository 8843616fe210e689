// logs.journal (Doc 05 logs.get_recent_app_logs / get_recent_audit_logs): one allow-listed log
// source per capability, e.g. `capability.app = logs.journal units=fleetmcp-device.service`.
#pragma once

#include <memory>
#include <string_view>

#include "device_client/backends/log_source.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kLogsKind = "logs.journal";

class LogHandler : public ToolHandler {
 public:
  explicit LogHandler(std::unique_ptr<LogSource> source) : ToolHandler(SafetyClass::kReadOnly, {"get"}), source_(std::move(source)) {}

  Result<json::Document> run(const ToolCall& call) override;

 private:
  const std::unique_ptr<LogSource> source_;  // sources are safe to call concurrently
};

// The arguments of logs.journal get as a query; invalid_argument for bad timestamps.
Result<LogQuery> log_query_from(const json::Value& arguments);

}  // namespace fleetmcp::device
