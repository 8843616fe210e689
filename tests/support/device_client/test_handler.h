// A ToolHandler double for the dispatcher tests: each call's arguments say what it does (hold until
// released, overrun, refuse, throw what a library might, return a bad result).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "common/base/error.h"
#include "common/base/json.h"
#include "common/protocol/cmd_ack.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device::testing {

inline constexpr auto kGuard = std::chrono::seconds(10);  // only against hanging, never a measurement

// A handler whose calls can be held until the test opens the gate.
struct HandlerControl {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  int waiting = 0;
  std::atomic<int> runs{0};
  std::atomic<std::thread::id> last_thread{};

  void hold() {
    std::unique_lock lock(m);
    ++waiting;
    cv.notify_all();
    cv.wait(lock, [this] { return open; });
  }
  bool wait_until_held(int n) {
    std::unique_lock lock(m);
    return cv.wait_for(lock, kGuard, [&] { return waiting >= n; });
  }
  void release() {
    std::lock_guard lock(m);
    open = true;
    cv.notify_all();
  }
};

class TestHandler : public ToolHandler {
 public:
  explicit TestHandler(HandlerControl& control) : ToolHandler(SafetyClass::kReadOnly, {"invoke"}), control_(control) {}
  // "hold" may block (the worker pool); every other mode runs inline.
  bool may_block(const ToolCall& call) const override {
    return json::get_string(call.arguments, "mode") == "hold";
  }

  Result<json::Document> run(const ToolCall& call) override {
    const int n = ++control_.runs;
    control_.last_thread = std::this_thread::get_id();
    const std::string mode(json::get_string(call.arguments, "mode").value_or(""));
    if (mode == "hold") control_.hold();
    // An inline call that overruns its deadline (it should not, but the answer must still be right).
    if (mode == "overrun") std::this_thread::sleep_for(std::chrono::milliseconds(80));
    if (mode == "error") return ErrorEnvelope(ErrorCode::kSafetyDenied, "not allowed here", "ask the operator");
    if (mode == "crash") throw std::runtime_error("/dev/secret-device-string failed");
    json::Document result(rapidjson::kObjectType);
    const char* key = mode == "bad_result" ? "unexpected" : "run";
    result.AddMember(rapidjson::StringRef(key), n, result.GetAllocator());
    // A result whose ack is past what the plugin reads (kMaxCmdAckBytes) by the envelope around it.
    if (mode == "huge") {
      const std::string padding(kMaxCmdAckBytes - 20, 'x');
      result.AddMember("padding", json::string_value(padding, result.GetAllocator()), result.GetAllocator());
    }
    return result;
  }

 private:
  HandlerControl& control_;
};

}  // namespace fleetmcp::device::testing
