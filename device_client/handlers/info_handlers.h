// network.status (Doc 05 addendum §1.1) and process.table (Doc 05 process.*, addendum §2.3–§2.4,
// §5): read-only views of /sys and /proc. Simulated nodes report the host, as system.metrics does.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kNetworkKind = "network.status";
inline constexpr std::string_view kProcessKind = "process.table";

class NetworkHandler : public ToolHandler {
 public:
  NetworkHandler() : ToolHandler(SafetyClass::kReadOnly, {"get"}) {}
  Result<json::Document> run(const ToolCall& call) override;
};

class ProcessHandler : public ToolHandler {
 public:
  // The window cpu_percent is rated over: one second, as the health snapshot's rates
  // (kIoRateInterval); a USER_HZ tick in it is 1 %.
  static constexpr std::chrono::milliseconds kCpuWindow{1000};
  explicit ProcessHandler(std::string proc_root = "/proc") : ToolHandler(SafetyClass::kReadOnly, {"snapshot", "get"}), proc_root_(std::move(proc_root)) {}
  Result<json::Document> run(const ToolCall& call) override;

 private:
  const std::string proc_root_;
};

}  // namespace fleetmcp::device
