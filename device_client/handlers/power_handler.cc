#include "device_client/handlers/power_handler.h"

#include "common/base/error.h"
#include "device_client/session/event_log.h"

namespace fleetmcp::device {

Result<json::Document> PowerHandler::run(const ToolCall& call) {
  const auto it = call.arguments.FindMember("delay_seconds");
  const int64_t delay = it != call.arguments.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : 5;
  if (Status scheduled = control_->schedule(action_, delay); !scheduled) return scheduled.error();
  // Whoever is at the device when it goes down should find out why in its log; the reason is the
  // agent's text, so it is clamped to printable ASCII and never goes into an envelope.
  const std::string reason = ascii_clamp(json::get_string(call.arguments, "reason").value_or(""), 200);
  log_warn(node_id_, "power.scheduled",
           action_ + " in " + std::to_string(delay) + " s" + (reason.empty() ? "" : ", reason: " + reason));
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("scheduled", true, a);
  d.AddMember("effective_after_seconds", delay, a);
  d.AddMember("action", json::string_value(action_, a), a);
  return d;
}

}  // namespace fleetmcp::device
