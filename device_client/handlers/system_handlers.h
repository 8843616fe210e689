// system.info (Doc 05 §3.1 system.get_basic_info) and system.health (§3.2
// system.get_health_snapshot, with §4.3's temperature fallback chain and the firmware's throttling
// flags, and the addendum's §4.1 network and §4.2 disk_io rates, host/io_rates.h: a snapshot takes
// the rates' interval, one second). Read-only; simulated nodes report the host they run on, as system.metrics does.
#pragma once

#include <string>
#include <string_view>

#include "device_client/host/system_facts.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kSystemInfoKind = "system.info";
inline constexpr std::string_view kSystemHealthKind = "system.health";

class SystemInfoHandler : public ToolHandler {
 public:
  explicit SystemInfoHandler(std::string root = "") : ToolHandler(SafetyClass::kReadOnly, {"get"}), root_(std::move(root)) {}
  Result<json::Document> run(const ToolCall& call) override;

 private:
  const std::string root_;
};

class HealthHandler : public ToolHandler {
 public:
  HealthHandler(const NodeServices& services, std::string root = "", CommandRunner run = run_helper)
      : ToolHandler(SafetyClass::kReadOnly, {"snapshot"}), services_(services), root_(std::move(root)), run_(std::move(run)) {}
  Result<json::Document> run(const ToolCall& call) override;

 private:
  const NodeServices services_;
  const std::string root_;
  const CommandRunner run_;
};

}  // namespace fleetmcp::device
