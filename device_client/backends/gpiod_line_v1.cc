// libgpiod v1 (Debian 12 "bookworm" ships 1.6; device_client/CMakeLists.txt builds this file or
// gpiod_line_v2.cc after the libgpiod pkg-config finds). The line stays requested while the node drives it, so
// another process cannot take it over; a read of a line we do not hold requests it "as is" and
// releases it at once, so reading never changes the pin's direction.
#include <gpiod.h>

#include <cerrno>

#include "device_client/base/catalogue_error.h"
#include "device_client/backends/gpio_line.h"

namespace fleetmcp::device {
namespace {

constexpr const char* kConsumer = "fleetmcp";

int bias_flags(PinPull pull) {
  switch (pull) {
    case PinPull::kUp: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    case PinPull::kDown: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    case PinPull::kNone: return GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    case PinPull::kUnknown: break;
  }
  return 0;
}

PinPull pull_of(gpiod_line* line) {
  switch (gpiod_line_bias(line)) {
    case GPIOD_LINE_BIAS_PULL_UP: return PinPull::kUp;
    case GPIOD_LINE_BIAS_PULL_DOWN: return PinPull::kDown;
    case GPIOD_LINE_BIAS_DISABLE: return PinPull::kNone;
    default: return PinPull::kUnknown;
  }
}

class GpiodLine : public GpioLine {
 public:
  GpiodLine(std::string chip, unsigned offset) : chip_name_(std::move(chip)), offset_(offset) {}
  ~GpiodLine() override {
    if (line_ != nullptr && gpiod_line_is_requested(line_)) gpiod_line_release(line_);
    if (chip_ != nullptr) gpiod_chip_close(chip_);
  }

  Result<PinState> read() override {
    const auto opened = open();
    if (!opened) return opened.error();
    gpiod_line* line = *opened;
    const bool held = gpiod_line_is_requested(line);
    // As is, never as an input first: that would turn a driven output into a floating input, and
    // a read needs only tools:call:read_only (issue 17).
    if (!held && request_as_is(line) != 0) {
      return failed_precondition("the GPIO line is in use by another program: " + errno_text(errno),
                                 "stop the program holding it (gpioinfo shows the consumer)");
    }
    const int value = gpiod_line_get_value(line);
    gpiod_line_update(line);
    PinState s{gpiod_line_direction(line) == GPIOD_LINE_DIRECTION_OUTPUT ? PinMode::kOutput : PinMode::kInput,
               std::nullopt, pull_of(line)};
    if (value >= 0) s.high = value == 1;
    if (!held) gpiod_line_release(line);
    return s;
  }

  Status configure(PinMode mode, PinPull pull) override {
    const auto opened = open();
    if (!opened) return opened.error();
    gpiod_line* line = *opened;
    if (gpiod_line_is_requested(line)) gpiod_line_release(line);
    const int flags = bias_flags(pull);
    const int rc = mode == PinMode::kOutput ? gpiod_line_request_output_flags(line, kConsumer, flags, 0)
                                            : gpiod_line_request_input_flags(line, kConsumer, flags);
    if (rc != 0) {
      return failed_precondition("cannot configure the GPIO line: " + errno_text(errno),
                                 "check that no other program holds the line and that the user may open the chip");
    }
    output_ = mode == PinMode::kOutput;
    return {};
  }

  Status write(bool high) override {
    const auto opened = open();
    if (!opened) return opened.error();
    gpiod_line* line = *opened;
    if (!output_ || !gpiod_line_is_requested(line)) {
      return failed_precondition("the pin is not configured as an output",
                                 "configure it first: call the pin's invoke tool with mode output");
    }
    if (gpiod_line_set_value(line, high ? 1 : 0) != 0) {
      return failed_precondition("cannot set the GPIO line: " + errno_text(errno), "check the chip and line");
    }
    return {};
  }

 private:
  static int request_as_is(gpiod_line* line) {
    gpiod_line_request_config config{kConsumer, GPIOD_LINE_REQUEST_DIRECTION_AS_IS, 0};
    return gpiod_line_request(line, &config, 0);
  }

  Result<gpiod_line*> open() {
    if (line_ != nullptr) return line_;
    if (chip_ == nullptr) chip_ = gpiod_chip_open_lookup(chip_name_.c_str());
    if (chip_ == nullptr) {
      return failed_precondition("no GPIO chip '" + chip_name_ + "' on this device: " + errno_text(errno),
                                 "check the chip= setting of this capability against gpiodetect, or remove the capability");
    }
    line_ = gpiod_chip_get_line(chip_, offset_);
    if (line_ == nullptr) {
      return failed_precondition("GPIO chip '" + chip_name_ + "' has no line " + std::to_string(offset_),
                                 "check the line= setting of this capability against gpioinfo");
    }
    return line_;
  }

  const std::string chip_name_;
  const unsigned offset_;
  gpiod_chip* chip_ = nullptr;
  gpiod_line* line_ = nullptr;
  bool output_ = false;
};

}  // namespace

std::unique_ptr<GpioLine> make_gpiod_line(std::string chip, unsigned offset) {
  return std::make_unique<GpiodLine>(std::move(chip), offset);
}

}  // namespace fleetmcp::device
