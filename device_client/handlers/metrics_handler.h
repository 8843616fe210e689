// system.metrics (RFC-0001 §5): `snapshot` returns one MetricsSample of the host; `subscribe`
// starts or renews the telemetry lease of docs/protocol.md §4 and says until when it runs.
#pragma once

#include <string_view>

#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kMetricsKind = "system.metrics";

class MetricsHandler : public ToolHandler {
 public:
  explicit MetricsHandler(const NodeServices& services) : ToolHandler(SafetyClass::kReadOnly, {"snapshot", "subscribe"}), services_(services) {}

  Result<json::Document> run(const ToolCall& call) override;

 private:
  json::Document snapshot(const json::Value& arguments);
  json::Document subscribe(const json::Value& arguments);

  NodeServices services_;
};

}  // namespace fleetmcp::device
