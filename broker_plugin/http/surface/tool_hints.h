// MCP tool annotations derived from what the server knows, never from the device (docs/protocol.md §7):
// the capability's kind, its declared safety_class and the verb, through the verb's own class
// (verb_safety_class, common/registry/kinds.h). A read verb (snapshot, subscribe, get, stream) and
// a read_only capability only read; otherwise set is idempotent, invoke is not, and a call is
// destructive unless all it does is add (MCP: destructiveHint false promises "only additive
// updates"): taking a photo adds one; a stop, a disable, an update and physical actuation do not.
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

ToolHints tool_hints(std::string_view kind, SafetyClass declared, std::string_view verb);

// docs/protocol.md §7 two-phase calls: `verb_class` is the verb's class (verb_safety_class or
// call_safety_class); physical actuation needs tools:call:physical_actuation and a confirmation.
// Reading a physical capability is a plain call (its verb class is read_only).
bool needs_commit_token(SafetyClass verb_class, std::string_view verb);

// The class a call is judged by: the verb's class (verb_safety_class), except that Doc 05 addendum
// §6.1's override (`force: true` among a set or invoke call's arguments: stop or disable a unit
// that running services depend on) breaks more than the capability's class promises, so such a
// call counts as physical actuation: it needs tools:call:physical_actuation and the two-phase
// confirmation. One member lookup, no allocation.
SafetyClass call_safety_class(std::string_view kind, SafetyClass declared, std::string_view verb,
                              const json::Value* arguments);

// The argument that asks for that override.
inline constexpr std::string_view kForceArgument = "force";

// Where arguments carry the commit token of a two-phase call. It is an argument (not _meta) so
// that a model, which only writes arguments, can repeat the call.
inline constexpr std::string_view kCommitTokenArgument = "commit_token";

}  // namespace fleetmcp::http
