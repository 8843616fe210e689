#include "device_client/peripherals/i2c_handler.h"

#include "device_client/base/catalogue_error.h"

namespace fleetmcp::device {
namespace {

std::optional<int> optional_register(const json::Value& arguments) {
  const auto it = arguments.FindMember("register");
  if (it == arguments.MemberEnd() || !it->value.IsInt()) return std::nullopt;
  return it->value.GetInt();
}

std::string allow_list_text(const std::set<int>& allowed) {
  std::string s;
  for (int a : allowed) s += (s.empty() ? "" : ", ") + std::to_string(a);
  return s;
}

}  // namespace

I2cHandler::I2cHandler(std::unique_ptr<I2cBus> bus, int bus_number, std::set<int> allowed,
                       std::set<int> readable_registers, bool writable)
    : ToolHandler(SafetyClass::kPhysicalActuation, writable ? std::vector<std::string>{"snapshot", "get", "set"}
                                                             : std::vector<std::string>{"snapshot", "get"}),
      bus_(std::move(bus)),
      bus_number_(bus_number),
      allowed_(std::move(allowed)),
      readable_registers_(std::move(readable_registers)) {}

Result<int> I2cHandler::allowed_address(const json::Value& arguments) const {
  const int address = arguments["address"].GetInt();
  if (!allowed_.count(address)) {
    return permission_denied("address " + std::to_string(address) + " is not in this capability's allow-list (" +
                                 allow_list_text(allowed_) + ")",
                             "use an allow-listed address; the device operator extends the list with the "
                             "capability's addresses= setting");
  }
  return address;
}

Result<json::Document> I2cHandler::scan() {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value found(rapidjson::kArrayType);
  for (int address : allowed_) {  // std::set: ascending, as the schema's description promises
    const auto present = bus_->probe(address);
    if (!present) return present.error();
    if (*present) found.PushBack(address, a);
  }
  d.AddMember("bus", bus_number_, a);
  d.AddMember("addresses", found, a);
  return d;
}

Result<json::Document> I2cHandler::read(const json::Value& arguments) {
  const auto allowed = allowed_address(arguments);
  if (!allowed) return allowed.error();
  const int address = *allowed;
  const auto reg = optional_register(arguments);
  if (reg && !readable_registers_.count(*reg)) {
    return permission_denied("reading register " + std::to_string(*reg) +
                                 " writes the register pointer first, and it is not listed as safe to read (" +
                                 (readable_registers_.empty() ? std::string("none is") : allow_list_text(readable_registers_)) +
                                 ")",
                             "read without a register, or have the device operator add it to the capability's "
                             "readable_registers= setting");
  }
  const auto data = bus_->read(address, reg, arguments["length"].GetInt());
  if (!data) return data.error();
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("bus", bus_number_, a);
  d.AddMember("address", address, a);
  if (reg) {
    d.AddMember("register", *reg, a);
  } else {
    d.AddMember("register", rapidjson::Value(), a);
  }
  rapidjson::Value bytes(rapidjson::kArrayType);
  for (uint8_t b : *data) bytes.PushBack(b, a);
  d.AddMember("data", bytes, a);
  return d;
}

Result<json::Document> I2cHandler::write(const json::Value& arguments) {
  const auto allowed = allowed_address(arguments);
  if (!allowed) return allowed.error();
  const int address = *allowed;
  const auto reg = optional_register(arguments);
  std::vector<uint8_t> data;
  for (const auto& b : arguments["data"].GetArray()) data.push_back(static_cast<uint8_t>(b.GetInt()));
  if (Status written = bus_->write(address, reg, data); !written) return written.error();
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("bus", bus_number_, a);
  d.AddMember("address", address, a);
  d.AddMember("bytes_written", static_cast<int>(data.size() + (reg ? 1 : 0)), a);
  return d;
}

Result<json::Document> I2cHandler::run(const ToolCall& call) {
  std::lock_guard lock(mutex_);
  if (call.verb == "snapshot") return scan();
  if (call.verb == "get") return read(call.arguments);
  return write(call.arguments);
}

}  // namespace fleetmcp::device
