// libgpiod v2 (Debian 13 "trixie" and current Raspberry Pi OS; device_client/CMakeLists.txt builds
// this file or gpiod_line_v1.cc after the libgpiod pkg-config finds). The same behaviour as v1:
// the line stays requested while the node drives it, so another process cannot take it over; a
// read of a line we do not hold requests it "as is" and releases it at once, so reading never
// changes the pin's direction. v2 requests lines through settings objects and hands back a
// request, where v1 flagged a line object: the two share no types, hence two files.
#include <gpiod.h>

#include <cctype>
#include <cerrno>
#include <filesystem>
#include <memory>

#include "device_client/base/catalogue_error.h"
#include "device_client/backends/gpio_line.h"

namespace fleetmcp::device {
namespace {

constexpr const char* kConsumer = "fleetmcp";

template <auto Free>
struct Freer {
  template <typename T>
  void operator()(T* p) const { Free(p); }
};
using Settings = std::unique_ptr<gpiod_line_settings, Freer<gpiod_line_settings_free>>;
using LineConfig = std::unique_ptr<gpiod_line_config, Freer<gpiod_line_config_free>>;
using RequestConfig = std::unique_ptr<gpiod_request_config, Freer<gpiod_request_config_free>>;
using LineInfo = std::unique_ptr<gpiod_line_info, Freer<gpiod_line_info_free>>;
using ChipInfo = std::unique_ptr<gpiod_chip_info, Freer<gpiod_chip_info_free>>;

gpiod_line_bias bias_of(PinPull pull) {
  switch (pull) {
    case PinPull::kUp: return GPIOD_LINE_BIAS_PULL_UP;
    case PinPull::kDown: return GPIOD_LINE_BIAS_PULL_DOWN;
    case PinPull::kNone: return GPIOD_LINE_BIAS_DISABLED;
    case PinPull::kUnknown: break;
  }
  return GPIOD_LINE_BIAS_AS_IS;
}

PinPull pull_of(gpiod_line_info* info) {
  switch (gpiod_line_info_get_bias(info)) {
    case GPIOD_LINE_BIAS_PULL_UP: return PinPull::kUp;
    case GPIOD_LINE_BIAS_PULL_DOWN: return PinPull::kDown;
    case GPIOD_LINE_BIAS_DISABLED: return PinPull::kNone;
    default: return PinPull::kUnknown;
  }
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

// v1's gpiod_chip_open_lookup, which v2 dropped: a path, a number ("0"), a name ("gpiochip0"),
// or else a chip's label ("pinctrl-bcm2711"), so the same chip= setting works on both.
gpiod_chip* open_chip(const std::string& name) {
  if (name.starts_with('/')) return gpiod_chip_open(name.c_str());
  if (all_digits(name)) return gpiod_chip_open(("/dev/gpiochip" + name).c_str());
  if (name.starts_with("gpiochip")) return gpiod_chip_open(("/dev/" + name).c_str());
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev", ec)) {
    if (!entry.path().filename().string().starts_with("gpiochip")) continue;
    gpiod_chip* chip = gpiod_chip_open(entry.path().c_str());
    if (chip == nullptr) continue;
    const ChipInfo info(gpiod_chip_get_info(chip));
    if (info != nullptr && name == gpiod_chip_info_get_label(info.get())) return chip;
    gpiod_chip_close(chip);
  }
  errno = ENOENT;
  return nullptr;
}

class GpiodLine : public GpioLine {
 public:
  GpiodLine(std::string chip, unsigned offset) : chip_name_(std::move(chip)), offset_(offset) {}
  ~GpiodLine() override {
    release();
    if (chip_ != nullptr) gpiod_chip_close(chip_);
  }

  Result<PinState> read() override {
    const auto opened = open();
    if (!opened) return opened.error();
    const bool held = request_ != nullptr;
    // As is, never as an input first: that would turn a driven output into a floating input, and
    // a read needs only tools:call:read_only (issue 17).
    if (!held && !request(GPIOD_LINE_DIRECTION_AS_IS, GPIOD_LINE_BIAS_AS_IS)) {
      return failed_precondition("the GPIO line is in use by another program: " + errno_text(errno),
                                 "stop the program holding it (gpioinfo shows the consumer)");
    }
    const gpiod_line_value value = gpiod_line_request_get_value(request_, offset_);
    const LineInfo info(gpiod_chip_get_line_info(chip_, offset_));
    PinState s;
    if (info != nullptr) {
      s.mode = gpiod_line_info_get_direction(info.get()) == GPIOD_LINE_DIRECTION_OUTPUT ? PinMode::kOutput
                                                                                         : PinMode::kInput;
      s.pull = pull_of(info.get());
    }
    if (value != GPIOD_LINE_VALUE_ERROR) s.high = value == GPIOD_LINE_VALUE_ACTIVE;
    if (!held) release();
    return s;
  }

  Status configure(PinMode mode, PinPull pull) override {
    const auto opened = open();
    if (!opened) return opened.error();
    release();
    const auto direction = mode == PinMode::kOutput ? GPIOD_LINE_DIRECTION_OUTPUT : GPIOD_LINE_DIRECTION_INPUT;
    if (!request(direction, bias_of(pull))) {
      return failed_precondition("cannot configure the GPIO line: " + errno_text(errno),
                                 "check that no other program holds the line and that the user may open the chip");
    }
    output_ = mode == PinMode::kOutput;
    return {};
  }

  Status write(bool high) override {
    const auto opened = open();
    if (!opened) return opened.error();
    if (!output_ || request_ == nullptr) {
      return failed_precondition("the pin is not configured as an output",
                                 "configure it first: call the pin's invoke tool with mode output");
    }
    const auto value = high ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
    if (gpiod_line_request_set_value(request_, offset_, value) != 0) {
      return failed_precondition("cannot set the GPIO line: " + errno_text(errno), "check the chip and line");
    }
    return {};
  }

 private:
  // Requests our one line; an output starts low, as v1's request_output(…, 0) does. False with
  // errno set when the kernel refuses.
  bool request(gpiod_line_direction direction, gpiod_line_bias bias) {
    const Settings settings(gpiod_line_settings_new());
    const LineConfig line_config(gpiod_line_config_new());
    const RequestConfig request_config(gpiod_request_config_new());
    if (settings == nullptr || line_config == nullptr || request_config == nullptr) return false;
    gpiod_line_settings_set_direction(settings.get(), direction);
    gpiod_line_settings_set_bias(settings.get(), bias);
    gpiod_line_settings_set_output_value(settings.get(), GPIOD_LINE_VALUE_INACTIVE);
    if (gpiod_line_config_add_line_settings(line_config.get(), &offset_, 1, settings.get()) != 0) return false;
    gpiod_request_config_set_consumer(request_config.get(), kConsumer);
    request_ = gpiod_chip_request_lines(chip_, request_config.get(), line_config.get());
    return request_ != nullptr;
  }

  void release() {
    if (request_ != nullptr) gpiod_line_request_release(request_);
    request_ = nullptr;
  }

  Result<gpiod_chip*> open() {
    if (chip_ != nullptr) return chip_;
    gpiod_chip* chip = open_chip(chip_name_);
    if (chip == nullptr) {
      return failed_precondition("no GPIO chip '" + chip_name_ + "' on this device: " + errno_text(errno),
                                 "check the chip= setting of this capability against gpiodetect, or remove the capability");
    }
    const ChipInfo info(gpiod_chip_get_info(chip));
    if (info == nullptr || offset_ >= gpiod_chip_info_get_num_lines(info.get())) {
      gpiod_chip_close(chip);
      return failed_precondition("GPIO chip '" + chip_name_ + "' has no line " + std::to_string(offset_),
                                 "check the line= setting of this capability against gpioinfo");
    }
    chip_ = chip;
    return chip_;
  }

  const std::string chip_name_;
  const unsigned offset_;
  gpiod_chip* chip_ = nullptr;
  gpiod_line_request* request_ = nullptr;
  bool output_ = false;
};

}  // namespace

std::unique_ptr<GpioLine> make_gpiod_line(std::string chip, unsigned offset) {
  return std::make_unique<GpiodLine>(std::move(chip), offset);
}

}  // namespace fleetmcp::device
