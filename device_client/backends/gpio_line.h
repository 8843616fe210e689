// One GPIO line behind an interface: libgpiod on a Pi (gpiod_line_v1.cc for libgpiod 1.x,
// gpiod_line_v2.cc for 2.x; the build picks one), a pin in memory on
// --simulate nodes (simulated_gpio_line.cc). Implementations are not thread-safe; GpioHandler
// serialises every use of a line.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/base/result.h"

namespace fleetmcp::device {

enum class PinMode { kInput, kOutput, kAlt, kUnknown };
enum class PinPull { kNone, kUp, kDown, kUnknown };

struct PinState {
  PinMode mode = PinMode::kUnknown;
  std::optional<bool> high;  // nullopt when the value cannot be read (alt function)
  PinPull pull = PinPull::kUnknown;
};

class GpioLine {
 public:
  virtual ~GpioLine() = default;
  // Each refuses with the Doc 05 §9.1 envelope (device_client/base/catalogue_error.h).
  virtual Result<PinState> read() = 0;
  virtual Status configure(PinMode mode, PinPull pull) = 0;  // kInput or kOutput
  // Only on a line configured as output (failed_precondition otherwise).
  virtual Status write(bool high) = 0;
};

// Starts as an input with no pull, reading low.
std::unique_ptr<GpioLine> make_simulated_gpio_line();
// `chip` as libgpiod 1's gpiod_chip_open_lookup takes it ("gpiochip0", "0", a path or the chip's
// label; the same on libgpiod 2). The chip is opened on
// first use, so a node without it still starts and each call answers failed_precondition.
std::unique_ptr<GpioLine> make_gpiod_line(std::string chip, unsigned offset);

}  // namespace fleetmcp::device
