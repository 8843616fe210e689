// A GPIO pin in memory. It behaves like the hardware where an agent can tell: a write to an input
// is refused, an input floats to its pull (low without one), an output reads back what was written.
#include "device_client/base/catalogue_error.h"
#include "device_client/backends/gpio_line.h"

namespace fleetmcp::device {
namespace {

class SimulatedGpioLine : public GpioLine {
 public:
  Result<PinState> read() override {
    const bool high = mode_ == PinMode::kOutput ? driven_high_ : pull_ == PinPull::kUp;
    return PinState{mode_, high, pull_};
  }

  Status configure(PinMode mode, PinPull pull) override {
    mode_ = mode;
    pull_ = pull;
    return {};
  }

  Status write(bool high) override {
    if (mode_ != PinMode::kOutput) {
      return failed_precondition("the pin is not configured as an output",
                                 "configure it first: call the pin's invoke tool with mode output");
    }
    driven_high_ = high;
    return {};
  }

 private:
  PinMode mode_ = PinMode::kInput;
  PinPull pull_ = PinPull::kNone;
  bool driven_high_ = false;
};

}  // namespace

std::unique_ptr<GpioLine> make_simulated_gpio_line() { return std::make_unique<SimulatedGpioLine>(); }

}  // namespace fleetmcp::device
