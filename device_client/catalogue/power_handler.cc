#include "device_client/catalogue/power_handler.h"

namespace fleetmcp::device {

json::Document PowerHandler::run(const ToolCall& call) {
  const auto it = call.arguments.FindMember("delay_seconds");
  const int64_t delay = it != call.arguments.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : 5;
  control_->schedule(action_, delay);
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("scheduled", true, a);
  d.AddMember("effective_after_seconds", delay, a);
  d.AddMember("action", json::string_value(action_, a), a);
  return d;
}

}  // namespace fleetmcp::device
