// A GPIO pin in memory. It behaves like the hardware where an agent can tell: a write to an input
// is refused, an input floats to its pull (low without one), an output reads back what was written.
#include "device_client/base/catalogue_error.h"
#include "device_client/backends/gpio_line.h"

namespace fleetmcp::device {
namespace {

class SimulatedGpioLine : public GpioLine {
 public:
  PinState read() override {
    const bool high = mode_ == PinMode::kOutput ? driven_high_ : pull_ == PinPull::kUp;
    return {mode_, high, pull_};
  }

  void configure(PinMode mode, PinPull pull) override {
    mode_ = mode;
    pull_ = pull;
  }

  void write(bool high) override {
    if (mode_ != PinMode::kOutput) {
      throw Error(failed_precondition("the pin is not configured as an output",
                                "configure it first: call the pin's invoke tool with mode output"));
    }
    driven_high_ = high;
  }

 private:
  PinMode mode_ = PinMode::kInput;
  PinPull pull_ = PinPull::kNone;
  bool driven_high_ = false;
};

}  // namespace

std::unique_ptr<GpioLine> make_simulated_gpio_line() { return std::make_unique<SimulatedGpioLine>(); }

}  // namespace fleetmcp::device
