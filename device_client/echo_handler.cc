#include "device_client/echo_handler.h"

#include <charconv>
#include <chrono>
#include <thread>

#include "common/ulid.h"

namespace fleetmcp::device {
namespace {

// Test hook (--test-hooks only, docs/device-client.md): "sleep:<ms>" holds the handler that long,
// so the integration tests can drive max_concurrency and the handler deadline through a real
// broker. Never active in production: without the flag the message is echoed like any other.
void maybe_sleep(std::string_view message) {
  constexpr std::string_view kPrefix = "sleep:";
  if (message.substr(0, kPrefix.size()) != kPrefix) return;
  const std::string_view digits = message.substr(kPrefix.size());
  int ms = 0;
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ms);
  if (ec != std::errc() || p != digits.data() + digits.size() || ms <= 0) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(ms, 60'000)));
}

}  // namespace

EchoHandler::EchoHandler(const NodeServices& services)
    : node_id_(services.node_id), test_hooks_(services.test_hooks) {}

json::Document EchoHandler::run(const ToolCall& call) {
  const int64_t received_at_ms = now_ms();  // RFC-0005 §4: wall clock at handler entry
  const std::string_view message = json::get_string(call.arguments, "message").value_or("");
  if (test_hooks_) maybe_sleep(message);
  json::Document result(rapidjson::kObjectType);
  auto& a = result.GetAllocator();
  result.AddMember("message", json::string_value(message, a), a);
  result.AddMember("received_at_ms", received_at_ms, a);
  result.AddMember("node_id", json::string_value(node_id_, a), a);
  return result;
}

}  // namespace fleetmcp::device
