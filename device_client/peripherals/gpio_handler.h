// gpio.pin (Doc 05 §5.1–§5.3): one allow-listed pin per capability. get reads it, invoke configures
// it (mode, pull), set drives it, optionally for duration_ms only: the previous value comes back
// from the shared TimerQueue, and a later write cancels a pending revert (the newest intent wins).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "device_client/backends/gpio_line.h"
#include "device_client/session/timer_queue.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kGpioPinKind = "gpio.pin";

class GpioHandler : public ToolHandler {
 public:
  // `writable` false offers only get (an input such as a button).
  GpioHandler(std::unique_ptr<GpioLine> line, int pin, bool writable, TimerQueue* timers);
  ~GpioHandler() override;

  Result<json::Document> run(const ToolCall& call) override;

 private:
  // Shared with pending revert tasks, which may outlive a call. ~GpioHandler applies a pending
  // revert at once: duration_ms promises "at most that long", also when the device shuts down.
  struct Pin {
    std::mutex mutex;
    std::unique_ptr<GpioLine> line;
    std::optional<TimerQueue::TimerId> revert;
    bool revert_to = false;   // the value a pending revert restores
    uint64_t generation = 0;  // bumped by every write and configure; a revert acts only on its own
  };

  Result<json::Document> describe(Pin& pin);  // with pin.mutex held
  Status write_for(bool high, std::optional<int64_t> duration_ms);

  const std::shared_ptr<Pin> pin_;
  const int number_;
  const bool writable_;  // the configuration allows output (set, invoke)
  TimerQueue* const timers_;
};

}  // namespace fleetmcp::device
