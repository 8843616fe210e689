#include "device_client/handlers/metrics_handler.h"

#include "common/base/error.h"
#include "common/ids/ulid.h"
#include "device_client/host/host_metrics.h"
#include "device_client/host/metrics_sample.h"
#include "device_client/session/telemetry_cadence.h"

namespace fleetmcp::device {

Result<json::Document> MetricsHandler::run(const ToolCall& call) {
  if (call.verb == "snapshot") return snapshot(call.arguments);
  if (call.verb == "subscribe") return subscribe(call.arguments);
  return ErrorEnvelope(ErrorCode::kVerbUnsupported, "system.metrics has no such verb", "use snapshot or subscribe");
}

json::Document MetricsHandler::snapshot(const json::Value& arguments) {
  const unsigned parts = metrics_parts_from_include(json::find(arguments, "include"));
  return metrics_sample_json(services_.host_metrics->sample(), services_.node_id, parts);
}

json::Document MetricsHandler::subscribe(const json::Value& arguments) {
  // The input schema makes interval_ms required, 1000..60000 (docs/protocol.md D3).
  const int64_t interval_ms = json::get_int64(arguments, "interval_ms").value_or(5000);
  const unsigned parts = metrics_parts_from_include(json::find(arguments, "include"));
  const int64_t expires = services_.telemetry->lease(interval_ms, parts, now_ms());
  if (services_.telemetry_changed) services_.telemetry_changed();
  json::Document result(rapidjson::kObjectType);
  auto& a = result.GetAllocator();
  result.AddMember("interval_ms", interval_ms, a);
  result.AddMember("lease_expires_at_ms", expires, a);
  return result;
}

}  // namespace fleetmcp::device
