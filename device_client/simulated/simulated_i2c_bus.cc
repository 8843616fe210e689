#include <array>
#include <map>

#include "device_client/base/catalogue_error.h"
#include "device_client/backends/i2c_bus.h"

namespace fleetmcp::device {
namespace {

struct RegisterFile {
  std::array<uint8_t, 256> regs{};
  uint8_t pointer = 0;
};

class SimulatedI2cBus : public I2cBus {
 public:
  explicit SimulatedI2cBus(const std::vector<int>& present) {
    for (int a : present) {
      RegisterFile& f = devices_[a];
      for (int r = 0; r < 256; ++r) f.regs[static_cast<size_t>(r)] = static_cast<uint8_t>((a + r) & 0xff);
    }
  }

  Result<bool> probe(int address) override { return devices_.count(address) != 0; }

  Result<std::vector<uint8_t>> read(int address, std::optional<int> reg, int length) override {
    const auto found = device(address);
    if (!found) return found.error();
    RegisterFile& f = **found;
    if (reg) f.pointer = static_cast<uint8_t>(*reg);
    std::vector<uint8_t> out;
    for (int i = 0; i < length; ++i) out.push_back(f.regs[f.pointer++]);
    return out;
  }

  Status write(int address, std::optional<int> reg, const std::vector<uint8_t>& data) override {
    const auto found = device(address);
    if (!found) return found.error();
    RegisterFile& f = **found;
    if (reg) f.pointer = static_cast<uint8_t>(*reg);
    for (uint8_t b : data) f.regs[f.pointer++] = b;
    return {};
  }

 private:
  Result<RegisterFile*> device(int address) {
    const auto it = devices_.find(address);
    if (it == devices_.end()) {
      // What i2c-dev reports when nothing acknowledges the address (ENXIO/EREMOTEIO).
      return failed_precondition("no device acknowledged address " + std::to_string(address),
                                 "check wiring and power, and scan the bus (snapshot) to see which addresses answer");
    }
    return &it->second;
  }

  std::map<int, RegisterFile> devices_;
};

}  // namespace

std::unique_ptr<I2cBus> make_simulated_i2c_bus(const std::vector<int>& present) {
  return std::make_unique<SimulatedI2cBus>(present);
}

}  // namespace fleetmcp::device
