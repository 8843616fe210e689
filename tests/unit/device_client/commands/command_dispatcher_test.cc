// CommandDispatcher (docs/protocol.md §4) with a controllable handler on a real worker pool and timer
// queue: every cmd gets exactly one cmd_ack, max_concurrency refuses with E_RATE_LIMITED and a
// retry hint, the deadline answers E_DEADLINE_EXCEEDED even while the handler hangs, and msg_id
// makes repeats replay the same ack without running again. No timed assertions: tests wait for
// events (with a generous guard against hanging) and the deadline path uses a handler that blocks
// until released.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/base/error.h"
#include "common/base/json.h"
#include "common/ids/ulid.h"
#include "common/protocol/cmd_ack.h"
#include "device_client/commands/command_dispatcher.h"
#include "device_client/commands/handler_catalogue.h"
#include "device_client/commands/tool_table.h"
#include "tests/support/device_client/test_handler.h"

namespace fleetmcp::device {
namespace {

using fleetmcp::device::testing::HandlerControl;
using fleetmcp::device::testing::TestHandler;

constexpr const char* kNode = "01jd3x4m5n6p7q8r9s0t1v2w3x";
constexpr const char* kTool = "tblock.01jd3x4m5n6p7q8r9s0t1v2w3x.blk.invoke";
constexpr auto kGuard = std::chrono::seconds(10);  // only against hanging, never a measurement

struct AckCollector {
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::string> acks;

  void add(const std::string& ack) {
    std::lock_guard lock(m);
    acks.push_back(ack);
    cv.notify_all();
  }
  bool wait_for_count(size_t n) {
    std::unique_lock lock(m);
    return cv.wait_for(lock, kGuard, [&] { return acks.size() >= n; });
  }
  std::vector<std::string> snapshot() {
    std::lock_guard lock(m);
    return acks;
  }
};

KindRegistry test_kinds() {
  const json::Document doc = json::parse_strict(R"({"kinds":[{"kind":"test.block","kind_short":"tblock",
    "schema_ref":"mcp://schemas/test.block@1.0.0","verbs":[{"verb":"invoke",
    "input":"mcp://schemas/test.block.input@1.0.0","output":"mcp://schemas/test.block.output@1.0.0",
    "description":"test tool on {node_id}"}]}]})").value();
  return KindRegistry::from_json(doc, "test kinds");
}

// Arguments fail their schema when they carry "bad"; results fail theirs unless they carry "run".
std::optional<ValidationFailure> fake_schema_check(std::string_view id, const json::Value& doc) {
  if (id == "mcp://schemas/test.block.input@1.0.0" && json::find(doc, "bad")) {
    return ValidationFailure{"/bad", "additional property not allowed"};
  }
  if (id == "mcp://schemas/test.block.output@1.0.0" && !json::find(doc, "run")) {
    return ValidationFailure{"", "required property run missing"};
  }
  return std::nullopt;
}

class Dispatcher : public ::testing::Test {
 protected:
  void make(int max_concurrency, int deadline_ms) {
    HandlerCatalogue catalogue;
    catalogue.add("test.block", [this](const CapabilityConfig&, const NodeServices&) {
      return std::make_unique<TestHandler>(control_);
    });
    CapabilityConfig cap;
    cap.cap_id = "blk";
    cap.kind = "test.block";
    cap.constraints = {10, max_concurrency, deadline_ms};
    cap.entry = {"test.conf", 1, "capability.blk", "test.block"};
    NodeServices services;
    services.node_id = kNode;
    tools_ = std::make_unique<ToolTable>(ToolTable::build({cap}, kinds_, catalogue, services));
    dispatcher_ = std::make_unique<CommandDispatcher>(kNode, *tools_, fake_schema_check, workers_, timers_,
                                                      [this](const std::string& ack) { acks_.add(ack); }, &audit_);
  }

  void TearDown() override {
    control_.release();
    workers_.wait_idle();
    timers_.stop();  // no deadline task may outlive the dispatcher it points to
  }

  // Sent now on the plugin's clock (which the tests take to be this machine's), unless `ts_ms`.
  static std::string cmd(const std::string& msg_id, const std::string& arguments = "{}",
                         const std::string& tool = kTool, int deadline_ms = 30000, int64_t ts_ms = 0) {
    return R"({"type":"cmd","msg_id":")" + msg_id + R"(","ts_ms":)" + std::to_string(ts_ms ? ts_ms : now_ms()) +
           R"(,"deadline_ms":)" + std::to_string(deadline_ms) + R"(,"payload":{"tool":")" + tool +
           R"(","arguments":)" + arguments + "}}";
  }
  static std::string sent_at(const std::string& msg_id, int64_t ts_ms, int deadline_ms = 2000,
                             const std::string& arguments = "{}") {
    return cmd(msg_id, arguments, kTool, deadline_ms, ts_ms);
  }

  // The ack's payload, after checking it answers `msg_id`.
  static json::Document payload_of(const std::string& ack, const std::string& msg_id) {
    json::Document doc = json::parse_strict(ack).value();
    EXPECT_EQ(json::get_string(doc, "type"), "cmd_ack");
    EXPECT_EQ(json::get_string(doc, "in_reply_to"), msg_id);
    json::Document payload;
    payload.CopyFrom(doc["payload"], payload.GetAllocator());
    return payload;
  }
  static std::string code_of(const std::string& ack, const std::string& msg_id) {
    const json::Document p = payload_of(ack, msg_id);
    if (json::get_bool(p, "ok") == true) return "ok";
    return std::string(json::get_string(p["error"], "code").value_or("?"));
  }

  HandlerControl control_;
  AckCollector acks_;
  KindRegistry kinds_ = test_kinds();
  TimerQueue timers_;
  WorkerPool workers_{4};
  std::unique_ptr<ToolTable> tools_;
  std::unique_ptr<CommandDispatcher> dispatcher_;
  CommandAudit audit_;  // off unless a test configures it
};

const std::string kId1 = "01JD3X4M5N6P7Q8R9S0T1V2W31";
const std::string kId2 = "01JD3X4M5N6P7Q8R9S0T1V2W32";
const std::string kId3 = "01JD3X4M5N6P7Q8R9S0T1V2W33";

TEST_F(Dispatcher, RunsAValidCmdAndAnswersOnce) {
  make(1, 2000);
  dispatcher_->on_cmd(cmd(kId1));
  ASSERT_TRUE(acks_.wait_for_count(1));
  workers_.wait_idle();
  const auto acks = acks_.snapshot();
  ASSERT_EQ(acks.size(), 1u);
  const json::Document p = payload_of(acks[0], kId1);
  EXPECT_EQ(json::get_bool(p, "ok"), true);
  EXPECT_EQ(json::get_int64(p["result"], "run"), 1);
  EXPECT_NE(json::get_string(json::parse_strict(acks[0]).value(), "msg_id"), kId1);  // the ack has its own id
}

// logs.audit (Doc 05 §2.2): one entry per answered cmd that named a tool of this node, written
// before the ack leaves; a duplicate answered from the cache and a cmd for no tool of this node
// leave none; argument values never appear.
TEST_F(Dispatcher, EachAnsweredCmdLeavesOneAuditEntryWithoutItsArguments) {
  make(1, 2000);
  audit_.configure(100, "");
  dispatcher_->on_cmd(cmd(kId1, R"({"secret":"hunter2"})"));
  ASSERT_TRUE(acks_.wait_for_count(1));
  dispatcher_->on_cmd(cmd(kId1, R"({"secret":"hunter2"})"));  // duplicate: replayed, not run
  dispatcher_->on_cmd(cmd(kId2, R"({"bad":"hunter2"})"));
  dispatcher_->on_cmd(cmd(kId3, "{}", "tblock.01jd3x4m5n6p7q8r9s0t1v2w3x.nope.invoke"));
  ASSERT_TRUE(acks_.wait_for_count(4));
  const auto page = audit_.newest_first(std::nullopt, 10);
  ASSERT_EQ(page.entries.size(), 2u);
  EXPECT_EQ(page.entries[1].msg_id, kId1);
  EXPECT_EQ(page.entries[1].outcome, "ok");
  EXPECT_EQ(page.entries[0].msg_id, kId2);
  EXPECT_EQ(page.entries[0].outcome, "E_MANIFEST_INVALID");
  for (const AuditEntry& e : page.entries) {
    EXPECT_EQ(e.cap_id, "blk");
    EXPECT_EQ(e.verb, "invoke");
    EXPECT_GE(e.duration_ms, 0);
    EXPECT_EQ(CommandAudit::to_line(e).find("hunter2"), std::string::npos);
  }
}

// Issue 33 item 3: an ack past kMaxCmdAckBytes is dropped by the plugin (its caller waits for the
// deadline) or, past max_packet_size, gets the node disconnected. The device sends an error that
// says to ask for fewer instead, and the call is audited with that outcome.
TEST_F(Dispatcher, AResultTooLargeForACmdAckIsRefusedNotSent) {
  make(1, 2000);
  audit_.configure(100, "");
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"huge"})"));
  ASSERT_TRUE(acks_.wait_for_count(1));
  const auto acks = acks_.snapshot();
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_LT(acks[0].size(), 1024u);
  const json::Document p = payload_of(acks[0], kId1);
  EXPECT_EQ(json::get_string(p["error"], "code"), "E_BAD_REQUEST");
  const std::string message(json::get_string(p["error"], "message").value_or(""));
  EXPECT_EQ(message.rfind("resource_exhausted: the result is 262", 0), 0u) << message;
  EXPECT_NE(message.find("bytes, more than the 262144 one answer may carry"), std::string::npos) << message;
  EXPECT_EQ(json::get_string(p["error"], "suggested_fix").value_or("").rfind("ask for fewer", 0), 0u);
  EXPECT_EQ(audit_.newest_first(std::nullopt, 1).entries.at(0).outcome, "E_BAD_REQUEST");
}

TEST_F(Dispatcher, RefusesToolsThatAreNotThisNodes) {
  make(1, 2000);
  dispatcher_->on_cmd(cmd(kId1, "{}", "tblock.01jd3x4m5n6p7q8r9s0t1v2w3y.blk.invoke"));
  dispatcher_->on_cmd(cmd(kId2, "{}", "tblock.01jd3x4m5n6p7q8r9s0t1v2w3x.nope.invoke"));
  dispatcher_->on_cmd(cmd(kId3, "{}", "tblock.01jd3x4m5n6p7q8r9s0t1v2w3x.blk.get"));
  ASSERT_TRUE(acks_.wait_for_count(3));
  const auto acks = acks_.snapshot();
  const json::Document other = payload_of(acks[0], kId1);
  EXPECT_EQ(json::get_string(other["error"], "code"), "E_BAD_REQUEST");
  EXPECT_EQ(json::get_string(other["error"], "message"), "payload.tool belongs to another node, not to this one");
  const json::Document unknown = payload_of(acks[1], kId2);
  EXPECT_EQ(json::get_string(unknown["error"], "message"), "payload.tool is not one of this node's tools");
  EXPECT_EQ(code_of(acks[2], kId3), "E_VERB_UNSUPPORTED");
  EXPECT_EQ(control_.runs.load(), 0);
}

TEST_F(Dispatcher, InvalidArgumentsAreManifestInvalidAndNeverRun) {
  make(1, 2000);
  dispatcher_->on_cmd(cmd(kId1, R"({"bad":1})"));
  ASSERT_TRUE(acks_.wait_for_count(1));
  const json::Document p = payload_of(acks_.snapshot()[0], kId1);
  EXPECT_EQ(json::get_string(p["error"], "code"), "E_MANIFEST_INVALID");  // RFC-0005 §8
  EXPECT_EQ(json::get_string(p["error"], "message"),
            "arguments do not match mcp://schemas/test.block.input@1.0.0 at '/bad': additional property not allowed");
  EXPECT_EQ(control_.runs.load(), 0);
}

TEST_F(Dispatcher, UnparseableCmdGetsNoAck) {
  make(1, 2000);
  dispatcher_->on_cmd("{not json");
  dispatcher_->on_cmd(R"({"type":"cmd","msg_id":"lowercase-is-no-ulid"})");
  dispatcher_->on_cmd(cmd(kId1));  // a marker: once its ack is here, the two above were handled
  ASSERT_TRUE(acks_.wait_for_count(1));
  workers_.wait_idle();
  ASSERT_EQ(acks_.snapshot().size(), 1u);
  EXPECT_EQ(code_of(acks_.snapshot()[0], kId1), "ok");
}

TEST_F(Dispatcher, BusyCapabilityIsRateLimitedWithRetryHint) {
  make(1, 30000);
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"hold"})"));
  ASSERT_TRUE(control_.wait_until_held(1));
  dispatcher_->on_cmd(cmd(kId2));
  ASSERT_TRUE(acks_.wait_for_count(1));
  const json::Document busy = payload_of(acks_.snapshot()[0], kId2);
  EXPECT_EQ(json::get_string(busy["error"], "code"), "E_RATE_LIMITED");
  const auto retry = json::get_int64(busy["error"], "retry_after_ms");
  ASSERT_TRUE(retry);
  EXPECT_GT(*retry, 0);
  EXPECT_LE(*retry, 30000);

  control_.release();
  ASSERT_TRUE(acks_.wait_for_count(2));
  EXPECT_EQ(code_of(acks_.snapshot()[1], kId1), "ok");
  // Nothing ran for the refused cmd, so its retry is decided afresh and now runs.
  workers_.wait_idle();
  dispatcher_->on_cmd(cmd(kId2));
  ASSERT_TRUE(acks_.wait_for_count(3));
  EXPECT_EQ(code_of(acks_.snapshot()[2], kId2), "ok");
  EXPECT_EQ(control_.runs.load(), 2);
}

TEST_F(Dispatcher, DeadlineAnswersWhileTheHandlerHangs) {
  make(1, 50);
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"hold"})"));
  ASSERT_TRUE(acks_.wait_for_count(1));  // the handler is still held: only the deadline can answer
  const json::Document p = payload_of(acks_.snapshot()[0], kId1);
  EXPECT_EQ(json::get_string(p["error"], "code"), "E_DEADLINE_EXCEEDED");
  EXPECT_EQ(json::get_string(p["error"], "message"), "the tool did not finish within its deadline of 50 ms");

  // The slot stays taken while the handler really runs (a hung handler cannot pile up more).
  dispatcher_->on_cmd(cmd(kId2));
  ASSERT_TRUE(acks_.wait_for_count(2));
  EXPECT_EQ(code_of(acks_.snapshot()[1], kId2), "E_RATE_LIMITED");

  control_.release();
  workers_.wait_idle();
  EXPECT_EQ(acks_.snapshot().size(), 2u);  // the late result is dropped, not sent
  EXPECT_EQ(tools_->find(kTool)->limit->in_use(), 0);
  // A repeat of the timed-out cmd replays the deadline ack.
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"hold"})"));
  ASSERT_TRUE(acks_.wait_for_count(3));
  EXPECT_EQ(acks_.snapshot()[2], acks_.snapshot()[0]);
  EXPECT_EQ(control_.runs.load(), 1);
}

TEST_F(Dispatcher, CallerDeadlineShorterThanTheCapabilitysWins) {
  make(1, 30000);
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"hold"})", kTool, 60));
  ASSERT_TRUE(acks_.wait_for_count(1));
  const json::Document p = payload_of(acks_.snapshot()[0], kId1);
  EXPECT_EQ(json::get_string(p["error"], "message"), "the tool did not finish within its deadline of 60 ms");
}

TEST_F(Dispatcher, RepeatedMsgIdReplaysTheSameAckWithoutRunning) {
  make(1, 2000);
  dispatcher_->on_cmd(cmd(kId1));
  ASSERT_TRUE(acks_.wait_for_count(1));
  workers_.wait_idle();
  dispatcher_->on_cmd(cmd(kId1));
  ASSERT_TRUE(acks_.wait_for_count(2));
  const auto acks = acks_.snapshot();
  EXPECT_EQ(acks[0], acks[1]);  // byte for byte, including the ack's own msg_id
  EXPECT_EQ(control_.runs.load(), 1);
}

TEST_F(Dispatcher, RepeatWhileRunningRunsOnceAndBothGetTheAck) {
  make(2, 30000);
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"hold"})"));
  ASSERT_TRUE(control_.wait_until_held(1));
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"hold"})"));
  EXPECT_EQ(acks_.snapshot().size(), 0u);
  control_.release();
  ASSERT_TRUE(acks_.wait_for_count(2));
  workers_.wait_idle();
  const auto acks = acks_.snapshot();
  ASSERT_EQ(acks.size(), 2u);
  EXPECT_EQ(acks[0], acks[1]);
  EXPECT_EQ(control_.runs.load(), 1);
}

TEST_F(Dispatcher, RefusalsAreCachedToo) {
  make(1, 2000);
  dispatcher_->on_cmd(cmd(kId1, R"({"bad":1})"));
  dispatcher_->on_cmd(cmd(kId1, R"({"bad":1})"));
  ASSERT_TRUE(acks_.wait_for_count(2));
  EXPECT_EQ(acks_.snapshot()[0], acks_.snapshot()[1]);
}

TEST_F(Dispatcher, HandlerErrorsBecomeEnvelopesWithoutDeviceStrings) {
  make(3, 2000);
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"error"})"));
  dispatcher_->on_cmd(cmd(kId2, R"({"mode":"crash"})"));
  dispatcher_->on_cmd(cmd(kId3, R"({"mode":"bad_result"})"));
  ASSERT_TRUE(acks_.wait_for_count(3));
  workers_.wait_idle();
  std::map<std::string, json::Document> by_id;
  for (const auto& ack : acks_.snapshot()) {
    const json::Document doc = json::parse_strict(ack).value();
    by_id[std::string(*json::get_string(doc, "in_reply_to"))] = payload_of(ack, std::string(*json::get_string(doc, "in_reply_to")));
    EXPECT_EQ(ack.find("secret-device-string"), std::string::npos) << ack;
  }
  EXPECT_EQ(json::get_string(by_id[kId1]["error"], "code"), "E_SAFETY_DENIED");
  EXPECT_EQ(json::get_string(by_id[kId1]["error"], "message"), "not allowed here");
  EXPECT_EQ(json::get_string(by_id[kId2]["error"], "code"), "E_INTERNAL");
  EXPECT_EQ(json::get_string(by_id[kId2]["error"], "message"), "internal: the tool failed on the device");
  EXPECT_EQ(json::get_string(by_id[kId3]["error"], "code"), "E_INTERNAL");
  EXPECT_EQ(json::get_string(by_id[kId3]["error"], "message"),
            "internal: the device produced a result that does not match mcp://schemas/test.block.output@1.0.0");
}

// A call that cannot block runs on the thread that delivered the cmd: its ack is out before
// on_cmd returns, with no worker and no deadline timer involved.
TEST_F(Dispatcher, CallThatCannotBlockIsAnsweredInlineWithoutATimer) {
  make(2, 2000);
  dispatcher_->on_cmd(cmd(kId1));
  ASSERT_EQ(acks_.snapshot().size(), 1u);  // no waiting: it already happened
  EXPECT_EQ(code_of(acks_.snapshot()[0], kId1), "ok");
  EXPECT_EQ(control_.last_thread.load(), std::this_thread::get_id());
  EXPECT_EQ(timers_.pending(), 0u);
  EXPECT_EQ(tools_->find(kTool)->limit->in_use(), 0);
  // A call that may block goes to a worker under a deadline timer, as before.
  dispatcher_->on_cmd(cmd(kId2, R"({"mode":"hold"})"));
  ASSERT_TRUE(control_.wait_until_held(1));
  EXPECT_NE(control_.last_thread.load(), std::this_thread::get_id());
  EXPECT_EQ(timers_.pending(), 1u);
}

// A held (blocking) call must not stall the inline path: quick calls are answered while it hangs,
// and it still gets its own ack once released.
TEST_F(Dispatcher, BlockingCallDoesNotStallInlineCalls) {
  make(3, 30000);
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"hold"})"));
  ASSERT_TRUE(control_.wait_until_held(1));
  dispatcher_->on_cmd(cmd(kId2));
  dispatcher_->on_cmd(cmd(kId3));
  ASSERT_EQ(acks_.snapshot().size(), 2u);
  EXPECT_EQ(code_of(acks_.snapshot()[0], kId2), "ok");
  EXPECT_EQ(code_of(acks_.snapshot()[1], kId3), "ok");
  control_.release();
  ASSERT_TRUE(acks_.wait_for_count(3));
  EXPECT_EQ(code_of(acks_.snapshot()[2], kId1), "ok");
}

// An inline call has no timer: a result that comes after the deadline is answered
// E_DEADLINE_EXCEEDED all the same, and a repeat replays that answer.
TEST_F(Dispatcher, InlineCallPastItsDeadlineIsDeadlineExceeded) {
  make(1, 20);
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"overrun"})"));
  ASSERT_EQ(acks_.snapshot().size(), 1u);
  const json::Document p = payload_of(acks_.snapshot()[0], kId1);
  EXPECT_EQ(json::get_string(p["error"], "code"), "E_DEADLINE_EXCEEDED");
  EXPECT_EQ(json::get_string(p["error"], "message"), "the tool did not finish within its deadline of 20 ms");
  EXPECT_EQ(tools_->find(kTool)->limit->in_use(), 0);
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"overrun"})"));
  ASSERT_EQ(acks_.snapshot().size(), 2u);
  EXPECT_EQ(acks_.snapshot()[1], acks_.snapshot()[0]);
  EXPECT_EQ(control_.runs.load(), 1);
}

// Issue 24 (docs/protocol.md §4.3 step 5): a cmd read after its deadline (ts_ms + deadline_ms on the
// plugin's clock) has a caller that was told it failed: it is refused and nothing runs; the ack
// says so, and a repeat gets the same ack. Before any plugin timestamp, the node's wall clock
// decides, with the protocol's 60 s allowance.
TEST_F(Dispatcher, ACmdReadAfterItsDeadlineIsRefusedAndNotRun) {
  make(1, 2000);
  dispatcher_->on_cmd(sent_at(kId1, now_ms() - 10 * 60'000));
  ASSERT_TRUE(acks_.wait_for_count(1));
  const json::Document p = payload_of(acks_.snapshot()[0], kId1);
  EXPECT_EQ(json::get_string(p["error"], "code"), "E_DEADLINE_EXCEEDED");
  const std::string message(json::get_string(p["error"], "message").value_or(""));
  EXPECT_TRUE(message.starts_with(kNotRunPrefix)) << message;
  EXPECT_NE(message.find("after its deadline"), std::string::npos) << message;
  dispatcher_->on_cmd(sent_at(kId1, now_ms() - 10 * 60'000));
  ASSERT_TRUE(acks_.wait_for_count(2));
  EXPECT_EQ(acks_.snapshot()[1], acks_.snapshot()[0]);
  workers_.wait_idle();
  EXPECT_EQ(control_.runs.load(), 0);
  EXPECT_EQ(tools_->find(kTool)->limit->in_use(), 0);
}

// Within the wall clock's allowance only a plugin timestamp can tell: a 30 s old cmd runs on a node
// that has none yet, and is refused once its status (or any earlier cmd) has given one.
TEST_F(Dispatcher, APluginTimestampRevealsACmdHeldUpForSeconds) {
  make(1, 2000);
  dispatcher_->on_cmd(sent_at(kId1, now_ms() - 30'000));
  ASSERT_TRUE(acks_.wait_for_count(1));
  EXPECT_EQ(code_of(acks_.snapshot()[0], kId1), "ok") << "nothing to compare it with yet";

  dispatcher_->on_plugin_time(now_ms());  // the status since_ms, as a session starts
  dispatcher_->on_cmd(sent_at(kId2, now_ms() - 30'000));
  ASSERT_TRUE(acks_.wait_for_count(2));
  EXPECT_EQ(code_of(acks_.snapshot()[1], kId2), "E_DEADLINE_EXCEEDED");
  EXPECT_EQ(control_.runs.load(), 1);

  dispatcher_->forget_plugin_time();  // the session ended: what was learnt no longer counts
  dispatcher_->on_cmd(sent_at(kId3, now_ms() - 30'000));
  ASSERT_TRUE(acks_.wait_for_count(3));
  EXPECT_EQ(code_of(acks_.snapshot()[2], kId3), "ok");
}

TEST_F(Dispatcher, AnEarlierCmdIsAPluginTimestampToo) {
  make(1, 2000);
  dispatcher_->on_cmd(sent_at(kId1, now_ms()));
  dispatcher_->on_cmd(sent_at(kId2, now_ms() - 5'000));  // sent before kId1, read after its deadline
  ASSERT_TRUE(acks_.wait_for_count(2));
  EXPECT_EQ(code_of(acks_.snapshot()[0], kId1), "ok");
  EXPECT_EQ(code_of(acks_.snapshot()[1], kId2), "E_DEADLINE_EXCEEDED");
  EXPECT_EQ(control_.runs.load(), 1);
}

// A cmd read part-way into its deadline gets only what is left of it: here about 1 s of 30.
TEST_F(Dispatcher, TheHandlerGetsOnlyWhatIsLeftOfTheDeadline) {
  make(1, 30000);
  dispatcher_->on_plugin_time(now_ms());
  dispatcher_->on_cmd(cmd(kId1, R"({"mode":"hold"})", kTool, 30000, now_ms() - 29'000));
  ASSERT_TRUE(acks_.wait_for_count(1));  // the handler is held: only its deadline answers
  const json::Document p = payload_of(acks_.snapshot()[0], kId1);
  EXPECT_EQ(json::get_string(p["error"], "code"), "E_DEADLINE_EXCEEDED");
  const std::string message(json::get_string(p["error"], "message").value_or(""));
  const std::string prefix = "the tool did not finish within its deadline of ";
  ASSERT_TRUE(message.starts_with(prefix)) << message;
  const int deadline = std::stoi(message.substr(prefix.size()));
  EXPECT_GT(deadline, 0);
  // Both clocks are read in whole milliseconds, so the estimate may be a millisecond or two generous.
  EXPECT_LE(deadline, 1002) << message;
}

}  // namespace
}  // namespace fleetmcp::device
