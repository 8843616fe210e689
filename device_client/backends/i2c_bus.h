// One I2C bus behind an interface: the i2c-dev ioctl interface on a Pi (i2c_dev_bus.cc), a bus of
// register-file devices in memory on --simulate nodes. Addresses are 7-bit; the handler has
// already checked them against the capability's allow-list.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/base/result.h"
#include <vector>

namespace fleetmcp::device {

class I2cBus {
 public:
  virtual ~I2cBus() = default;
  // Each refuses with failed_precondition when the bus or the transfer fails.
  // True when a device acknowledges a one-byte read at `address`.
  virtual Result<bool> probe(int address) = 0;
  // With a register: write it, repeated start, read `length` bytes (one combined transaction).
  virtual Result<std::vector<uint8_t>> read(int address, std::optional<int> reg, int length) = 0;
  virtual Status write(int address, std::optional<int> reg, const std::vector<uint8_t>& data) = 0;
};

// Devices at `present` addresses, each a 256-byte register file with an auto-incrementing pointer
// (like most sensors), register r of device a starting at (a + r) & 0xff.
std::unique_ptr<I2cBus> make_simulated_i2c_bus(const std::vector<int>& present);
// /dev/i2c-<bus>, opened per call (a bus is shared with other programs; holding it buys nothing).
std::unique_ptr<I2cBus> make_i2c_dev_bus(int bus, std::string dev_dir = "/dev");

}  // namespace fleetmcp::device
