// One PWM channel behind an interface: the kernel's sysfs PWM class on a Pi (sysfs_pwm.cc, e.g.
// dtoverlay=pwm on GPIO18), a channel in memory on --simulate nodes.
#pragma once

#include <memory>
#include <string>

#include "common/base/result.h"

namespace fleetmcp::device {

struct PwmState {
  double frequency_hz = 0;
  double duty_cycle_percent = 0;
  bool enabled = false;
};

class PwmChannel {
 public:
  virtual ~PwmChannel() = default;
  // Each refuses with failed_precondition when the channel cannot be read or written.
  virtual Result<PwmState> read() = 0;
  // duty 0 disables the output (a 0 % PWM is "off", and some controllers glitch at 0 ns duty).
  virtual Result<PwmState> set(double frequency_hz, double duty_cycle_percent) = 0;
};

std::unique_ptr<PwmChannel> make_simulated_pwm_channel();
// `sysfs_root` is /sys/class/pwm except in tests; the channel is exported on first use.
std::unique_ptr<PwmChannel> make_sysfs_pwm_channel(std::string sysfs_root, int chip, int channel);

// Nanosecond period and duty of the kernel interface, rounded to the nearest ns.
struct PwmTiming {
  long long period_ns = 0, duty_ns = 0;
};
PwmTiming pwm_timing(double frequency_hz, double duty_cycle_percent);
PwmState pwm_state(long long period_ns, long long duty_ns, bool enabled);

}  // namespace fleetmcp::device
