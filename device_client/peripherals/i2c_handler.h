// i2c.bus (Doc 05 §6): one allow-listed bus per capability, and within it an allow-list of 7-bit
// addresses (`addresses=0x48,0x76`). snapshot probes only those addresses (a general scan can
// upset devices that treat a read as a command); get and set refuse any other address.
// A get with a register writes the register pointer before reading: on some devices (PCF8574-
// style expanders) that write changes outputs. get needs only tools:call:read_only, so it reads
// a register only when the operator lists it as safe to point at (`readable_registers=0x00,0xf4`);
// a get without a register is a plain read (issue 17).
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string_view>

#include "device_client/backends/i2c_bus.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kI2cKind = "i2c.bus";

class I2cHandler : public ToolHandler {
 public:
  I2cHandler(std::unique_ptr<I2cBus> bus, int bus_number, std::set<int> allowed, std::set<int> readable_registers,
             bool writable);

  Result<json::Document> run(const ToolCall& call) override;

 private:
  Result<int> allowed_address(const json::Value& arguments) const;
  Result<json::Document> scan();
  Result<json::Document> read(const json::Value& arguments);
  Result<json::Document> write(const json::Value& arguments);

  std::mutex mutex_;
  const std::unique_ptr<I2cBus> bus_;
  const int bus_number_;
  const std::set<int> allowed_;
  const std::set<int> readable_registers_;
};

}  // namespace fleetmcp::device
