#include "broker_plugin/http/surface/tool_hints.h"

namespace fleetmcp::http {

ToolHints tool_hints(SafetyClass safety_class, std::string_view verb) {
  if (safety_class == SafetyClass::kReadOnly || is_read_verb(verb)) return {.read_only = true, .destructive = false, .idempotent = true};
  return {.read_only = false,
          .destructive = safety_class == SafetyClass::kPhysicalActuation,
          .idempotent = verb == "set"};
}

bool needs_commit_token(SafetyClass safety_class, std::string_view verb) {
  return safety_class == SafetyClass::kPhysicalActuation && !is_read_verb(verb);
}

}  // namespace fleetmcp::http
