// The sysfs PWM interface (Documentation/ABI/testing/sysfs-class-pwm): export the channel, then
// period, duty_cycle and enable in nanoseconds. duty_cycle may never exceed period, so the order
// of writes depends on whether the period grows or shrinks.
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <thread>

#include "device_client/base/catalogue_error.h"
#include "device_client/backends/pwm_channel.h"

namespace fleetmcp::device {
namespace {

namespace fs = std::filesystem;

class SysfsPwmChannel : public PwmChannel {
 public:
  SysfsPwmChannel(std::string root, int chip, int channel)
      : chip_dir_(root + "/pwmchip" + std::to_string(chip)),
        dir_(chip_dir_ + "/pwm" + std::to_string(channel)),
        channel_(channel) {}

  Result<PwmState> read() override {
    if (Status exported = ensure_exported(); !exported) return exported.error();
    const auto period = read_number("period");
    if (!period) return period.error();
    const auto duty = read_number("duty_cycle");
    if (!duty) return duty.error();
    const auto enable = read_number("enable");
    if (!enable) return enable.error();
    return pwm_state(*period, *duty, *enable == 1);
  }

  Result<PwmState> set(double frequency_hz, double duty_cycle_percent) override {
    if (Status exported = ensure_exported(); !exported) return exported.error();
    const PwmTiming t = pwm_timing(frequency_hz, duty_cycle_percent);
    const auto old_period = read_number("period");
    if (!old_period) return old_period.error();
    Status written;
    if (t.period_ns >= *old_period) {
      written = write_value("period", t.period_ns);
      if (written) written = write_value("duty_cycle", t.duty_ns);
    } else {  // the new duty is below the new period, hence below the old one: it goes first
      written = write_value("duty_cycle", t.duty_ns);
      if (written) written = write_value("period", t.period_ns);
    }
    if (written) written = write_value("enable", t.duty_ns > 0 ? 1 : 0);
    if (!written) return written.error();
    return read();
  }

 private:
  // The error_code overloads: a directory we may not read is "not there" (and the write below says
  // why), never a filesystem_error escaping to the dispatcher.
  static bool exists(const std::string& path) {
    std::error_code ec;
    return fs::exists(path, ec);
  }

  Status ensure_exported() {
    if (exists(dir_)) return {};
    if (!exists(chip_dir_)) {
      return failed_precondition("no PWM chip at " + chip_dir_,
                                 "enable the PWM overlay (e.g. dtoverlay=pwm in config.txt) or fix the chip= setting");
    }
    if (Status exported = write_file(chip_dir_ + "/export", std::to_string(channel_)); !exported) return exported;
    // udev fixes the permissions of the new directory shortly after the export.
    for (int i = 0; i < 50 && !exists(dir_ + "/period"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return {};
  }

  Result<long long> read_number(const std::string& name) {
    std::ifstream in(dir_ + "/" + name);
    long long v = 0;
    if (!(in >> v)) {
      return failed_precondition("cannot read " + dir_ + "/" + name, "check that the PWM channel exists and is readable");
    }
    return v;
  }

  Status write_value(const std::string& name, long long v) { return write_file(dir_ + "/" + name, std::to_string(v)); }

  static Status write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
    out.flush();
    if (!out) {
      return failed_precondition("cannot write " + path + ": " + errno_text(errno),
                                 "run fleetmcp-device with write access to the PWM class (group gpio on Raspberry Pi OS)");
    }
    return {};
  }

  const std::string chip_dir_, dir_;
  const int channel_;
};

}  // namespace

std::unique_ptr<PwmChannel> make_sysfs_pwm_channel(std::string sysfs_root, int chip, int channel) {
  return std::make_unique<SysfsPwmChannel>(std::move(sysfs_root), chip, channel);
}

}  // namespace fleetmcp::device
