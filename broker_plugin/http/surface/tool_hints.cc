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

SafetyClass call_safety_class(SafetyClass declared, std::string_view verb, const json::Value* arguments) {
  if (declared == SafetyClass::kReadOnly || is_read_verb(verb) || arguments == nullptr || !arguments->IsObject()) {
    return declared;
  }
  return json::get_bool(*arguments, kForceArgument).value_or(false) ? SafetyClass::kPhysicalActuation : declared;
}

}  // namespace fleetmcp::http
