// Why a tool call does not go ahead: the error of the Result<T, CallRefusal> the tool surfaces and
// the CallGate hand back (a refusal carries more than its error envelope: how each API answers it,
// the scope to step up to, a fresh commit token).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/http/fleet/fleet_view.h"
#include "common/base/error.h"
#include "common/base/result.h"

namespace fleetmcp::http {

enum class RefusalKind {
  kUnknownTool,  // MCP: JSON-RPC -32602; RFC-0009: 404
  kScope,        // HTTP 403 with WWW-Authenticate error="insufficient_scope"
  kExecution,    // MCP: a result with isError; RFC-0009: the status of the code
  // fleet_call's own arguments (node_id, cap_id, verb) are malformed: an MCP result with isError
  // (fleet_call lists no outputSchema), not audited (there is no call to name).
  kMalformedFleetCall,
};

struct CallRefusal {
  RefusalKind kind = RefusalKind::kExecution;
  ErrorEnvelope error;
  const FleetTool* tool = nullptr;  // the per-node tool, when the name resolved
  std::string asked;                // how the audit line names the tool when none resolved
  std::string required_scope;       // kScope
  std::string commit_token;         // a two-phase refusal: the token that confirms this call
  // Not an answer yet: the first phase of a physical actuation whose device state is read first
  // (actuation_check.h) with this tool; the endpoint reads it, then admits again.
  const FleetTool* read_first = nullptr;
};

// The envelope every "no such tool for you" answer carries, whatever the real reason; `nearest`,
// names the caller may call that are near misses of the one asked (ToolSurface::resolve), are
// suggested in its message and fix.
ErrorEnvelope unknown_tool_error(std::string_view tool_name, const std::vector<std::string_view>& nearest = {});

inline CallRefusal unknown_tool(std::string_view asked, const std::vector<std::string_view>& nearest = {}) {
  return CallRefusal{RefusalKind::kUnknownTool, unknown_tool_error(asked, nearest), nullptr, std::string(asked), {}, {}};
}

}  // namespace fleetmcp::http
