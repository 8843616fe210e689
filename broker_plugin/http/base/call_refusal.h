// Why a tool call does not go ahead, and the value-or-refusal type the tool surfaces and the
// CallGate hand back (a refusal carries more than its error envelope: how each API answers it, the
// scope to step up to, a fresh commit token).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "broker_plugin/http/fleet/fleet_view.h"
#include "common/base/error.h"

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
};

// A value, or the refusal that says why there is none (the shape of Result<T>, common/base/result.h,
// with a CallRefusal in place of the bare envelope).
template <typename T>
class [[nodiscard]] Refusable {
 public:
  Refusable(T value) : state_(std::in_place_index<0>, std::move(value)) {}            // NOLINT: implicit on purpose
  Refusable(CallRefusal refusal) : state_(std::in_place_index<1>, std::move(refusal)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& operator*() { return std::get<0>(state_); }
  const T& operator*() const { return std::get<0>(state_); }
  T* operator->() { return &std::get<0>(state_); }
  const T* operator->() const { return &std::get<0>(state_); }
  // Only when !ok().
  const CallRefusal& refusal() const { return std::get<1>(state_); }
  CallRefusal& refusal() { return std::get<1>(state_); }

 private:
  std::variant<T, CallRefusal> state_;
};

// The envelope every "no such tool for you" answer carries, whatever the real reason.
ErrorEnvelope unknown_tool_error(std::string_view tool_name);

inline CallRefusal unknown_tool(std::string_view asked) {
  return CallRefusal{RefusalKind::kUnknownTool, unknown_tool_error(asked), nullptr, std::string(asked), {}, {}};
}

}  // namespace fleetmcp::http
