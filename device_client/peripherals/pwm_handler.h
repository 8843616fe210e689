// gpio.pwm (Doc 05 §5.4): one allow-listed PWM channel per capability; get reads it, set changes
// frequency and duty cycle. The result is the effective state read back from the channel.
#pragma once

#include <memory>
#include <mutex>
#include <string_view>

#include "device_client/backends/pwm_channel.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kPwmKind = "gpio.pwm";

class PwmHandler : public ToolHandler {
 public:
  PwmHandler(std::unique_ptr<PwmChannel> channel, int pin) : ToolHandler(SafetyClass::kPhysicalActuation, {"get", "set"}), channel_(std::move(channel)), pin_(pin) {}

  Result<json::Document> run(const ToolCall& call) override;

 private:
  std::mutex mutex_;
  const std::unique_ptr<PwmChannel> channel_;
  const int pin_;
};

}  // namespace fleetmcp::device
