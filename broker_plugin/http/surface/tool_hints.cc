#include "broker_plugin/http/surface/tool_hints.h"

namespace fleetmcp::http {

ToolHints tool_hints(std::string_view kind, SafetyClass declared, std::string_view verb) {
  if (verb_safety_class(kind, declared, verb) == SafetyClass::kReadOnly) {
    return {.read_only = true, .destructive = false, .idempotent = true};
  }
  // The one call that only adds: a new photo in the device's photo directory.
  const bool additive = kind == "camera.still" && verb == "invoke";
  return {.read_only = false, .destructive = !additive, .idempotent = verb == "set"};
}

bool needs_commit_token(SafetyClass verb_class, std::string_view verb) {
  return verb_class == SafetyClass::kPhysicalActuation && !is_read_verb(verb);
}

SafetyClass call_safety_class(std::string_view kind, SafetyClass declared, std::string_view verb,
                              const json::Value* arguments) {
  const SafetyClass verb_class = verb_safety_class(kind, declared, verb);
  if (verb_class == SafetyClass::kReadOnly || arguments == nullptr || !arguments->IsObject()) return verb_class;
  return json::get_bool(*arguments, kForceArgument).value_or(false) ? SafetyClass::kPhysicalActuation : verb_class;
}

}  // namespace fleetmcp::http
