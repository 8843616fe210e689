#include "device_client/handlers/echo_handler.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <thread>

#include "common/ids/ulid.h"

namespace fleetmcp::device {
namespace {

// Test hook (--test-hooks only, docs/device-client.md): "sleep:<ms>" holds the handler that long,
// so the integration tests can drive max_concurrency and the handler deadline through a real
// broker. Never active in production: without the flag the message is echoed like any other.
// The requested sleep in ms, or 0 when the message asks for none.
int requested_sleep_ms(std::string_view message) {
  constexpr std::string_view kPrefix = "sleep:";
  if (message.substr(0, kPrefix.size()) != kPrefix) return 0;
  const std::string_view digits = message.substr(kPrefix.size());
  int ms = 0;
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ms);
  if (ec != std::errc() || p != digits.data() + digits.size() || ms <= 0) return 0;
  return std::min(ms, 60'000);
}

std::string_view message_of(const ToolCall& call) {
  return json::get_string(call.arguments, "message").value_or("");
}

}  // namespace

EchoHandler::EchoHandler(const NodeServices& services)
    : ToolHandler(SafetyClass::kReadOnly, {"invoke"}), node_id_(services.node_id), test_hooks_(services.test_hooks) {}

bool EchoHandler::may_block(const ToolCall& call) const {
  return test_hooks_ && requested_sleep_ms(message_of(call)) > 0;
}

Result<json::Document> EchoHandler::run(const ToolCall& call) {
  const int64_t received_at_ms = now_ms();  // RFC-0005 §4: wall clock at handler entry
  const std::string_view message = message_of(call);
  if (test_hooks_) {
    if (const int ms = requested_sleep_ms(message)) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
  json::Document result(rapidjson::kObjectType);
  auto& a = result.GetAllocator();
  result.AddMember("message", json::string_value(message, a), a);
  result.AddMember("received_at_ms", received_at_ms, a);
  result.AddMember("node_id", json::string_value(node_id_, a), a);
  return result;
}

}  // namespace fleetmcp::device
