// fuzz_tool_args: a tool call's arguments through the real CallGate (call_gate.h: scope, the
// verb's input schema, the node's state, two-phase commit tokens, the limiter), the gate both
// MCP tools/call and POST /mcp/tools/call pass, over the tools of the in-memory fleet of
// front_harness.h. The first byte picks the tool (high nibble, among tenant acme's: echo,
// metrics snapshot and subscribe, relay0 set and get) and the token's scopes (low nibble, one bit
// each); the rest is the arguments as the client wrote them (JSON).
//
// Properties: what the gate passes on is JSON that validates against the verb's input schema
// (the device is sent exactly that); and a two-phase call it refuses for want of confirmation is
// admitted when repeated with the commit token the refusal carried.
#include <sstream>
#include <string>
#include <vector>

#include "broker_plugin/http/calls/call_gate.h"
#include "fuzz/front_harness.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;
using namespace fleetmcp::http;

namespace {

constexpr std::string_view kScopes[] = {"devices:read", "tools:call:read_only", "tools:call:reversible",
                                        "tools:call:physical_actuation"};

struct Gate {
  const SchemaRegistry& schemas = *testing::test_registry();
  std::shared_ptr<const FleetSnapshot> fleet = fuzz::FrontHarness::get().fixture().fleet->snapshot();
  std::vector<const FleetTool*> tools = [this] {
    std::vector<const FleetTool*> out;
    for (auto it = fleet->tools("acme").begin(); it != fleet->tools("acme").end(); ++it) out.push_back(*it);
    return out;
  }();
  CallLimiter limiter;
  CommitTokens commits{30'000};
  CallGate gate{schemas, limiter, commits};
  int64_t now_ms = 0;
};

AgentToken agent_with(uint8_t scope_bits) {
  AgentToken agent;
  agent.sub = "alice";
  agent.tenant = "acme";
  agent.aud = "fleetmcp";
  for (size_t i = 0; i < std::size(kScopes); ++i) {
    if (scope_bits & (1u << i)) agent.scopes.emplace(kScopes[i]);
  }
  return agent;
}

void check_pass(const Gate& g, const GatePass& pass) {
  const auto sent = json::parse_strict(pass.arguments_json);
  if (!sent) fuzz::property_failed("the gate passed on arguments that are not JSON");
  if (g.schemas.validate(pass.tool->verb.input_schema, *sent)) {
    fuzz::property_failed("the gate passed on arguments that do not validate against the input schema");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static Gate g;
  g.now_ms += 120'000;  // past every rate window and commit token of the last input
  const FleetTool* tool = g.tools[(data[0] >> 4) % g.tools.size()];
  const AgentToken agent = agent_with(data[0] & 0x0f);
  const auto arguments = json::parse_strict(fuzz::as_text(data + 1, size - 1));
  if (!arguments) return 0;  // the endpoints answer a body that is not JSON before the gate

  const auto first = g.gate.admit(*g.fleet, agent, ResolvedCall{ResolvedCall::Action::kCall, tool, &*arguments, "/arguments", {}}, g.now_ms);
  if (first) {
    check_pass(g, *first);
    return 0;
  }
  const std::string& token = first.error().commit_token;
  if (token.empty()) return 0;

  // The confirmation, a second later: the same arguments (without whatever commit_token they had)
  // plus the new one.
  g.now_ms += 1000;
  json::Document confirmed;
  confirmed.CopyFrom(*arguments, confirmed.GetAllocator());
  confirmed.RemoveMember(std::string(kCommitTokenArgument).c_str());
  confirmed.AddMember(json::string_value(kCommitTokenArgument, confirmed.GetAllocator()),
                      json::string_value(token, confirmed.GetAllocator()), confirmed.GetAllocator());
  const auto second = g.gate.admit(*g.fleet, agent, ResolvedCall{ResolvedCall::Action::kCall, tool, &confirmed, "/arguments", {}}, g.now_ms);
  if (!second) fuzz::property_failed("a confirmed two-phase call was refused with its own commit token");
  check_pass(g, *second);
  return 0;
}
