// Everything a tool call must pass before it reaches the command path, in RFC-0005 §6 step 2
// order, shared by MCP tools/call and POST /mcp/tools/call:
//   1. the name (dotted or dashed) resolves to a tool of the caller's tenant — another tenant's
//      tool is indistinguishable from one that does not exist;
//   2. the token has the scope docs/protocol.md §7 requires for (safety_class, verb);
//   3. the arguments validate against the verb's input schema (E_MANIFEST_INVALID naming where);
//   4. the node is online (E_NODE_OFFLINE at once, no device round trip);
//   5. physical actuation carries a valid commit token, or is refused with a new one;
//   6. the capability's rate and concurrency limits admit it (E_RATE_LIMITED, retry_after_ms).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "broker_plugin/http/calls/call_limiter.h"
#include "broker_plugin/http/calls/commit_tokens.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "common/crypto/agent_token.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::http {

// Where arguments carry the commit token of a two-phase call. It is an argument (not _meta) so
// that a model, which only writes arguments, can repeat the call.
inline constexpr std::string_view kCommitTokenArgument = "commit_token";

enum class RefusalKind {
  kUnknownTool,  // MCP: JSON-RPC -32602; RFC-0009: 404
  kScope,        // HTTP 403 with WWW-Authenticate error="insufficient_scope"
  kExecution,    // MCP: a result with isError; RFC-0009: the status of the code
};

struct GatePass {
  const FleetTool* tool = nullptr;  // points into the snapshot the gate was given
  std::string arguments_json;       // compact, without commit_token
  std::shared_ptr<ConcurrencySlot> slot;  // held until the call completes (none for streams)
  bool confirmed_by_commit_token = false;  // a two-phase call whose token was redeemed
};

struct GateRefusal {
  RefusalKind kind = RefusalKind::kExecution;
  ErrorEnvelope error;
  std::string required_scope;       // kScope
  const FleetTool* tool = nullptr;  // when the name resolved
  std::string commit_token;         // a two-phase refusal: the token that confirms this call
};

using GateDecision = std::variant<GatePass, GateRefusal>;

// sys.<id>.<cap>.subscribe of system.metrics: answered with a stream, not a unary call.
bool is_metrics_stream(const FleetTool& tool);

class CallGate {
 public:
  CallGate(const SchemaRegistry& schemas, CallLimiter& limiter, CommitTokens& commits)
      : schemas_(schemas), limiter_(limiter), commits_(commits) {}

  // `arguments` may be null (absent: {}). `arguments_at` is where they sit in what the client
  // wrote (a JSON pointer, "" for the top level): a validation error names the argument by it.
  GateDecision admit(const FleetSnapshot& fleet, const AgentToken& agent, std::string_view tool_name,
                     const json::Value* arguments, int64_t now_ms, std::string_view arguments_at = {});

 private:
  std::optional<GateRefusal> check_commit(const FleetTool& tool, const AgentToken& agent,
                                          const json::Value& arguments, std::optional<std::string> token,
                                          int64_t now_ms);

  const SchemaRegistry& schemas_;
  CallLimiter& limiter_;
  CommitTokens& commits_;
};

// The envelope every "no such tool for you" answer carries, whatever the real reason.
ErrorEnvelope unknown_tool_error(std::string_view tool_name);

}  // namespace fleetmcp::http
