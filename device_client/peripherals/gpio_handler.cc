#include "device_client/peripherals/gpio_handler.h"

#include "device_client/base/catalogue_error.h"

namespace fleetmcp::device {
namespace {

std::string_view mode_name(PinMode m) {
  switch (m) {
    case PinMode::kInput: return "input";
    case PinMode::kOutput: return "output";
    case PinMode::kAlt: return "alt";
    case PinMode::kUnknown: break;
  }
  return "unknown";
}

std::string_view pull_name(PinPull p) {
  switch (p) {
    case PinPull::kNone: return "none";
    case PinPull::kUp: return "up";
    case PinPull::kDown: return "down";
    case PinPull::kUnknown: break;
  }
  return "unknown";
}

PinPull pull_from(std::string_view s) {
  if (s == "up") return PinPull::kUp;
  if (s == "down") return PinPull::kDown;
  return PinPull::kNone;
}

}  // namespace

GpioHandler::GpioHandler(std::unique_ptr<GpioLine> line, int pin, bool writable, TimerQueue* timers)
    : ToolHandler(SafetyClass::kPhysicalActuation, writable ? std::vector<std::string>{"get", "set", "invoke"}
                                                             : std::vector<std::string>{"get"}),
      pin_(std::make_shared<Pin>()),
      number_(pin),
      writable_(writable),
      timers_(timers) {
  pin_->line = std::move(line);
}

GpioHandler::~GpioHandler() {
  std::lock_guard lock(pin_->mutex);
  if (!pin_->revert || timers_ == nullptr) return;
  timers_->cancel(*pin_->revert);
  ++pin_->generation;  // a revert task already starting does nothing
  // Refused when the pin was reconfigured as an input meanwhile: then there is nothing to restore.
  (void)pin_->line->write(pin_->revert_to);
}

Result<json::Document> GpioHandler::describe(Pin& pin) {
  const auto state = pin.line->read();
  if (!state) return state.error();
  const PinState& s = *state;
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("pin", number_, a);
  d.AddMember("mode", json::string_value(mode_name(s.mode), a), a);
  if (s.high) {
    d.AddMember("value", json::string_value(*s.high ? "high" : "low", a), a);
  } else {
    d.AddMember("value", rapidjson::Value(), a);
  }
  d.AddMember("allowed", true, a);
  // Doc 05 §5.1 lists the pins the server allows with what it allows on each: the configuration
  // (writable=false: an input such as a button), so an agent knows before asking to drive it.
  rapidjson::Value modes(rapidjson::kArrayType);
  modes.PushBack("input", a);
  if (writable_) modes.PushBack("output", a);
  d.AddMember("allowed_modes", modes, a);
  d.AddMember("pull", json::string_value(pull_name(s.pull), a), a);
  if (pin.revert) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(pin.revert->first - TimerQueue::Clock::now());
    d.AddMember("revert_in_ms", std::max<int64_t>(0, left.count()), a);
  } else {
    d.AddMember("revert_in_ms", rapidjson::Value(), a);
  }
  return d;
}

Status GpioHandler::write_for(bool high, std::optional<int64_t> duration_ms) {
  Pin& pin = *pin_;
  if (pin.revert) {
    timers_->cancel(*pin.revert);
    pin.revert.reset();
  }
  const auto before = pin.line->read();
  if (!before) return before.error();
  if (Status written = pin.line->write(high); !written) return written;
  const uint64_t generation = ++pin.generation;
  if (!duration_ms) return {};
  const bool previous = before->high.value_or(false);
  pin.revert_to = previous;
  std::weak_ptr<Pin> weak = pin_;
  pin.revert = timers_->after(std::chrono::milliseconds(*duration_ms), [weak, previous, generation] {
    const auto p = weak.lock();
    if (!p) return;
    std::lock_guard lock(p->mutex);
    if (p->generation != generation) return;  // superseded while this task was starting
    p->revert.reset();
    // Refused when the pin was reconfigured as an input meanwhile: there is nothing left to revert.
    (void)p->line->write(previous);
  });
  return {};
}

Result<json::Document> GpioHandler::run(const ToolCall& call) {
  std::lock_guard lock(pin_->mutex);
  if (call.verb == "set") {
    const bool high = json::get_string(call.arguments, "value") == std::optional<std::string_view>("high");
    std::optional<int64_t> duration;
    const auto it = call.arguments.FindMember("duration_ms");
    if (it != call.arguments.MemberEnd() && it->value.IsInt64()) duration = it->value.GetInt64();
    if (duration && timers_ == nullptr) {
      return failed_precondition("this node cannot schedule a revert", "call without duration_ms");
    }
    if (Status written = write_for(high, duration); !written) return written.error();
  } else if (call.verb == "invoke") {
    const bool output = json::get_string(call.arguments, "mode") == std::optional<std::string_view>("output");
    if (pin_->revert) {  // a new configuration supersedes a pending revert
      timers_->cancel(*pin_->revert);
      pin_->revert.reset();
    }
    ++pin_->generation;
    const Status configured = pin_->line->configure(output ? PinMode::kOutput : PinMode::kInput,
                                                    pull_from(json::get_string(call.arguments, "pull").value_or("none")));
    if (!configured) return configured.error();
  }
  return describe(*pin_);
}

}  // namespace fleetmcp::device
