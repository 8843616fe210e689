#include <cmath>

#include "device_client/backends/pwm_channel.h"

namespace fleetmcp::device {
namespace {

class SimulatedPwmChannel : public PwmChannel {
 public:
  Result<PwmState> read() override { return state_; }
  Result<PwmState> set(double frequency_hz, double duty_cycle_percent) override {
    // Round through the kernel's nanosecond units, so the simulation reports what hardware would.
    const PwmTiming t = pwm_timing(frequency_hz, duty_cycle_percent);
    state_ = pwm_state(t.period_ns, t.duty_ns, duty_cycle_percent > 0);
    return state_;
  }

 private:
  PwmState state_;
};

}  // namespace

PwmTiming pwm_timing(double frequency_hz, double duty_cycle_percent) {
  PwmTiming t;
  t.period_ns = std::llround(1e9 / frequency_hz);
  t.duty_ns = std::llround(static_cast<double>(t.period_ns) * duty_cycle_percent / 100.0);
  return t;
}

PwmState pwm_state(long long period_ns, long long duty_ns, bool enabled) {
  PwmState s;
  if (period_ns <= 0) return s;
  s.frequency_hz = std::round(1e9 / static_cast<double>(period_ns) * 1000.0) / 1000.0;
  s.duty_cycle_percent = std::round(static_cast<double>(duty_ns) * 100.0 / static_cast<double>(period_ns) * 1000.0) / 1000.0;
  s.enabled = enabled;
  return s;
}

std::unique_ptr<PwmChannel> make_simulated_pwm_channel() { return std::make_unique<SimulatedPwmChannel>(); }

}  // namespace fleetmcp::device
