// MCP tool annotations derived from what the server knows, never from the device (docs/protocol.md §7):
// the capability's safety_class and the verb. A read_only capability, and a read verb (snapshot,
// subscribe, get, stream) of any class, only reads; otherwise set is idempotent, invoke is not,
// and physical actuation is destructive.
#pragma once

#include <string_view>

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

}  // namespace fleetmcp::http
