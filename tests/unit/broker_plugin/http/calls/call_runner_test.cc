// CallRunner and the InFlightCall it starts (the one call path of MCP tools/call, fleet_read and
// RFC-0009): each call ends once, by its outcome, end() or cancel(); every end releases the
// concurrency slot and writes the audit line before the endpoint hears of it; the deadline is the
// fleet's, not the front's.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker_plugin/http/calls/call_runner.h"
#include "tests/support/front_fixture.h"

namespace fleetmcp::http::testing {
namespace {

class CallRunnerTest : public ::testing::Test {
 protected:
  CallRunnerTest() {
    fleet->add_node("acme", std::string(kNode),
                    {{"relay0", "test.relay", {"set", "get"}, SafetyClass::kPhysicalActuation, {10, 1, 2000}}});
    scheduler->run();
  }
  ~CallRunnerTest() override {
    scheduler->run();
    fleet.reset();
    scheduler->clear();
  }

  // relay0.get admitted by the gate (a read: no commit token), holding the capability's one slot.
  GatePass admitted() {
    snapshot = fleet->snapshot();
    const FleetTool* get = nullptr;
    for (const FleetTool& t : snapshot->node("acme", kNode)->tools) {
      if (t.name.verb == "get") get = &t;
    }
    auto pass = runner.admit(*snapshot, *agent, ResolvedCall{ResolvedCall::Action::kCall, get, nullptr, {}});
    EXPECT_TRUE(pass.ok());
    return std::move(*pass);
  }
  std::shared_ptr<InFlightCall> start(std::vector<CallResult>& answers) {
    GatePass pass = admitted();
    return runner.start("mcp", scheduler, agent, snapshot, std::move(pass),
                        [&answers](CallResult r) { answers.push_back(std::move(r)); });
  }
  // A call its node takes and does not answer.
  std::shared_ptr<InFlightCall> start_unanswered(std::vector<CallResult>& answers) {
    fleet->set_silent(std::string(kNode), true);
    auto call = start(answers);
    scheduler->run();
    return call;
  }
  size_t in_flight() const { return limiter.in_flight(std::string(kNode) + "/relay0"); }
  std::string decision(size_t line) const {
    return std::string(*json::get_string(json::parse_strict(audit->at(line)).value(), "decision"));
  }

  std::shared_ptr<ManualScheduler> scheduler = std::make_shared<ManualScheduler>();
  std::function<int64_t()> clock = [s = scheduler] { return 1'700'000'000'000 + s->now_ms(); };
  std::unique_ptr<MemoryFleet> fleet = std::make_unique<MemoryFleet>(test_registry(), scheduler, clock);
  std::shared_ptr<std::vector<std::string>> audit = std::make_shared<std::vector<std::string>>();
  FrontMetrics metrics;
  CallLog log{CallAudit([a = audit](std::string_view line) { a->emplace_back(line); }), metrics, clock};
  CallLimiter limiter;
  CommitTokens commits{30000};
  CallGate gate{*test_registry(), limiter, commits};
  CallRunner runner{gate, *fleet, log, clock, [s = scheduler] { return s->now_ms(); }};
  SharedAgentToken agent = std::make_shared<const AgentToken>(
      AgentToken{"alice", "acme", "fleetmcp", "", {"tools:call:read_only", "tools:call:physical_actuation"}, 0, 0});
  std::shared_ptr<const FleetSnapshot> snapshot;
};

TEST_F(CallRunnerTest, TheSlotIsReleasedAndTheCallAuditedBeforeTheEndpointAnswers) {
  std::optional<size_t> slots_then, lines_then;
  GatePass pass = admitted();
  runner.start("rfc0009", scheduler, agent, snapshot, std::move(pass), [&](CallResult r) {
    EXPECT_TRUE(r.ok());
    slots_then = in_flight();
    lines_then = audit->size();
  });
  EXPECT_EQ(in_flight(), 1u);
  scheduler->run();
  ASSERT_TRUE(slots_then);
  EXPECT_EQ(*slots_then, 0u);  // a next call is not refused for the slot of one already answered
  EXPECT_EQ(*lines_then, 1u);
  EXPECT_EQ(decision(0), "ok");
  EXPECT_NE(audit->at(0).find(R"("via":"rfc0009")"), std::string::npos);
}

// The front keeps no deadline of its own (fleet_view.h): the fleet answers at the gateway deadline,
// max(5000, deadline_ms_default + 1000) ms, and that is the call's one end.
TEST_F(CallRunnerTest, ACallTheNodeNeverAnswersEndsAtTheFleetsDeadline) {
  std::vector<CallResult> answers;
  start_unanswered(answers);
  scheduler->advance(std::chrono::milliseconds(4999));
  EXPECT_TRUE(answers.empty());
  EXPECT_EQ(in_flight(), 1u);
  scheduler->advance(std::chrono::milliseconds(1));
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(in_flight(), 0u);
  ASSERT_EQ(audit->size(), 1u);
  EXPECT_EQ(decision(0), "error");
}

TEST_F(CallRunnerTest, ACancelledCallIsAuditedAndNeverAnswered) {
  std::vector<CallResult> answers;
  const auto call = start_unanswered(answers);
  EXPECT_TRUE(call->cancel());
  EXPECT_EQ(in_flight(), 0u);
  EXPECT_FALSE(call->cancel());
  EXPECT_FALSE(call->end(ErrorEnvelope(ErrorCode::kInternal, "late", "")));
  fleet->set_online(std::string(kNode), false);  // the node's outcome comes after all: dropped
  scheduler->run();
  EXPECT_TRUE(answers.empty());
  ASSERT_EQ(audit->size(), 1u);
  EXPECT_EQ(decision(0), "cancel");
}

TEST_F(CallRunnerTest, EndAnswersOnceAndTheLateOutcomeIsDropped) {
  std::vector<CallResult> answers;
  const auto call = start_unanswered(answers);
  EXPECT_TRUE(call->end(ErrorEnvelope(ErrorCode::kSafetyDenied, "the MCP session ended", "open a new session")));
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].error().code, ErrorCode::kSafetyDenied);
  EXPECT_EQ(in_flight(), 0u);
  scheduler->advance(std::chrono::milliseconds(10000));  // the fleet's deadline answer: dropped
  EXPECT_EQ(answers.size(), 1u);
  ASSERT_EQ(audit->size(), 1u);
  EXPECT_EQ(decision(0), "error");
  EXPECT_FALSE(call->cancel());
}

}  // namespace
}  // namespace fleetmcp::http::testing
