// system.info (Doc 05 §3.1 system.get_basic_info) and system.health (§3.2
// system.get_health_snapshot, with §4.3's temperature fallback chain and the firmware's throttling
// flags). Read-only; simulated nodes report the host they run on, as system.metrics does.
#pragma once

#include <string>
#include <string_view>

#include "device_client/host/system_facts.h"
#include "device_client/commands/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kSystemInfoKind = "system.info";
inline constexpr std::string_view kSystemHealthKind = "system.health";

class SystemInfoHandler : public ToolHandler {
 public:
  explicit SystemInfoHandler(std::string root = "") : root_(std::move(root)) {}
  std::string_view kind() const override { return kSystemInfoKind; }
  SafetyClass safety_class() const override { return SafetyClass::kReadOnly; }
  std::vector<std::string> verbs() const override { return {"get"}; }
  json::Document run(const ToolCall& call) override;

 private:
  const std::string root_;
};

class HealthHandler : public ToolHandler {
 public:
  HealthHandler(const NodeServices& services, std::string root = "", CommandRunner run = run_helper)
      : services_(services), root_(std::move(root)), run_(std::move(run)) {}
  std::string_view kind() const override { return kSystemHealthKind; }
  SafetyClass safety_class() const override { return SafetyClass::kReadOnly; }
  std::vector<std::string> verbs() const override { return {"snapshot"}; }
  json::Document run(const ToolCall& call) override;

 private:
  const NodeServices services_;
  const std::string root_;
  const CommandRunner run_;
};

}  // namespace fleetmcp::device
