// Everything a tool call must pass before it reaches the command path, in RFC-0005 §6 step 2
// order, shared by MCP tools/call and POST /mcp/tools/call:
//   1. the name resolved to a tool of the caller's tenant (ToolSurface::resolve, tool_surface.h:
//      before the gate, once; the gate parses no name);
//   2. the token has the scope docs/protocol.md §7 requires for (safety_class, verb), the class
//      raised to physical actuation for a forced call (tool_hints.h call_safety_class);
//   3. the arguments validate against the verb's input schema (E_INVALID_ARGUMENTS naming where, docs/protocol.md D41);
//   4. the node is online (E_NODE_OFFLINE at once, no device round trip);
//   5. physical actuation (and a forced call) carries a valid commit token, or is refused with a new
//      one (E_RATE_LIMITED instead when the rate bucket would refuse the call now, and, when the
//      caller asks for it, a read of the device's state first (actuation_check.h): nobody is asked
//      to confirm a call that would then be refused);
//   6. the capability's rate and concurrency limits admit it (E_RATE_LIMITED, retry_after_ms), a
//      read of a capability that also acts leaving headroom to acting calls (call_limiter.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "broker_plugin/http/calls/call_limiter.h"
#include "broker_plugin/http/base/call_refusal.h"
#include "broker_plugin/http/calls/commit_tokens.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/surface/tool_hints.h"
#include "broker_plugin/http/surface/tool_surface.h"
#include "common/crypto/agent_token.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::http {

struct GatePass {
  const FleetTool* tool = nullptr;  // points into the snapshot the gate was given
  std::string arguments_json;       // compact, without commit_token
  std::shared_ptr<ConcurrencySlot> slot;  // held until the call completes (none for streams)
  bool confirmed_by_commit_token = false;  // a two-phase call whose token was redeemed
};

// sys.<id>.<cap>.subscribe of system.metrics: answered with a stream, not a unary call.
bool is_metrics_stream(const FleetTool& tool);

class CallGate {
 public:
  CallGate(const SchemaRegistry& schemas, CallLimiter& limiter, CommitTokens& commits)
      : schemas_(schemas), limiter_(limiter), commits_(commits) {}

  // `call` is a resolved kCall of `fleet` (its tool points into it); its arguments may be null
  // (absent: {}), and a validation error names an argument by call.arguments_at. A refusal is
  // kScope or kExecution, naming the tool. With `check_device`, the first phase of a call whose
  // device state can rule it out is, instead of refused with a commit token, a refusal whose
  // read_first names the read to make first (actuation_check.h).
  Result<GatePass, CallRefusal> admit(const FleetSnapshot& fleet, const AgentToken& agent, const ResolvedCall& call,
                                      int64_t now_ms, bool check_device = false);
  // CommitTokens::adopt: a commit token another front issued, out of a verified requestState.
  void adopt_commit_token(const std::string& token, CommitBinding binding, int64_t expires_at_ms, int64_t now_ms) {
    commits_.adopt(token, std::move(binding), expires_at_ms, now_ms);
  }

 private:
  // The refusal of a two-phase call without a valid commit token: it carries a fresh one.
  CallRefusal unconfirmed(const FleetTool& tool, const AgentToken& agent, const json::Value& arguments, bool had_token,
                          int64_t now_ms);

  const SchemaRegistry& schemas_;
  CallLimiter& limiter_;
  CommitTokens& commits_;
};

}  // namespace fleetmcp::http
