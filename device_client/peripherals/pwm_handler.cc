#include "device_client/peripherals/pwm_handler.h"

namespace fleetmcp::device {

Result<json::Document> PwmHandler::run(const ToolCall& call) {
  std::lock_guard lock(mutex_);
  const auto state = call.verb == "set" ? channel_->set(call.arguments["frequency_hz"].GetDouble(),
                                                         call.arguments["duty_cycle_percent"].GetDouble())
                                          : channel_->read();
  if (!state) return state.error();
  const PwmState& s = *state;
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("pin", pin_, a);
  d.AddMember("frequency_hz", s.frequency_hz, a);
  d.AddMember("duty_cycle_percent", s.duty_cycle_percent, a);
  d.AddMember("enabled", s.enabled, a);
  return d;
}

}  // namespace fleetmcp::device
