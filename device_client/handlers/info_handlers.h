// network.status (Doc 05 addendum §1.1) and process.table (Doc 05 process.*, addendum §2.3–§2.4,
// §5): read-only views of /sys and /proc. Simulated nodes report the host, as system.metrics does.
#pragma once

#include <string>
#include <string_view>

#include "device_client/commands/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kNetworkKind = "network.status";
inline constexpr std::string_view kProcessKind = "process.table";

class NetworkHandler : public ToolHandler {
 public:
  std::string_view kind() const override { return kNetworkKind; }
  SafetyClass safety_class() const override { return SafetyClass::kReadOnly; }
  std::vector<std::string> verbs() const override { return {"get"}; }
  json::Document run(const ToolCall& call) override;
};

class ProcessHandler : public ToolHandler {
 public:
  explicit ProcessHandler(std::string proc_root = "/proc") : proc_root_(std::move(proc_root)) {}
  std::string_view kind() const override { return kProcessKind; }
  SafetyClass safety_class() const override { return SafetyClass::kReadOnly; }
  std::vector<std::string> verbs() const override { return {"snapshot", "get"}; }
  json::Document run(const ToolCall& call) override;

 private:
  const std::string proc_root_;
};

}  // namespace fleetmcp::device
