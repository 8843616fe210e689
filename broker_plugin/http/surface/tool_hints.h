// MCP tool annotations derived from what the server knows, never from the device (docs/protocol.md §7):
// the capability's safety_class and the verb. A read_only capability, and a read verb (snapshot,
// subscribe, get, stream) of any class, only reads; otherwise set is idempotent, invoke is not,
// and physical actuation is destructive.
#pragma once

#include <string_view>

#include "common/base/json.h"
#include "common/registry/kinds.h"

namespace fleetmcp::http {

struct ToolHints {
  bool read_only = false;
  bool destructive = false;
  bool idempotent = false;
};

ToolHints tool_hints(SafetyClass safety_class, std::string_view verb);

// docs/protocol.md §7 two-phase calls: the verbs that need tools:call:physical_actuation, i.e. set/invoke
// of a physical_actuation capability. Reading such a capability is a plain call.
bool needs_commit_token(SafetyClass safety_class, std::string_view verb);

// The class a call is judged by. Doc 05 addendum §6.1's override (`force: true` among a set or
// invoke call's arguments: stop or disable a unit that running services depend on) breaks more
// than the capability's class promises, so such a call counts as physical actuation: it needs
// tools:call:physical_actuation and the two-phase confirmation. Any other call keeps `declared`.
// One member lookup, no allocation.
SafetyClass call_safety_class(SafetyClass declared, std::string_view verb, const json::Value* arguments);

// The argument that asks for that override.
inline constexpr std::string_view kForceArgument = "force";

// Where arguments carry the commit token of a two-phase call. It is an argument (not _meta) so
// that a model, which only writes arguments, can repeat the call.
inline constexpr std::string_view kCommitTokenArgument = "commit_token";

}  // namespace fleetmcp::http
