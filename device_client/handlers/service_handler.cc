#include "device_client/handlers/service_handler.h"

#include "common/ids/ulid.h"
#include "common/protocol/cmd_ack.h"
#include "device_client/base/catalogue_error.h"
#include "device_client/host/iso_time.h"

namespace fleetmcp::device {

json::Document service_status_json(const ServiceStatus& s) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("name", json::string_value(s.name, a), a);
  if (!s.description.empty()) d.AddMember("description", json::string_value(s.description, a), a);
  d.AddMember("status", json::string_value(s.status, a), a);
  if (!s.sub_status.empty()) d.AddMember("sub_status", json::string_value(s.sub_status, a), a);
  d.AddMember("enabled", s.enabled, a);
  if (!s.unit_file_state.empty()) d.AddMember("unit_file_state", json::string_value(s.unit_file_state, a), a);
  if (s.pid > 0) d.AddMember("pid", s.pid, a);
  if (s.memory_bytes) d.AddMember("memory_bytes", *s.memory_bytes, a);
  if (s.uptime_seconds) d.AddMember("uptime_seconds", *s.uptime_seconds, a);
  if (s.restart_count) d.AddMember("restart_count", *s.restart_count, a);
  if (!s.fragment_path.empty()) d.AddMember("fragment_path", json::string_value(s.fragment_path, a), a);
  const std::pair<const char*, const std::string*> configuration[] = {
      {"preset", &s.preset}, {"user", &s.user}, {"group", &s.group},
      {"working_directory", &s.working_directory}, {"restart_policy", &s.restart_policy}};
  for (const auto& [name, value] : configuration) {
    if (!value->empty()) d.AddMember(rapidjson::StringRef(name), json::string_value(*value, a), a);
  }
  d.AddMember("can_start", s.can_start, a);
  d.AddMember("can_stop", s.can_stop, a);
  d.AddMember("can_reload", s.can_reload, a);
  return d;
}

Status refuse_breaking_dependents(ServiceControl& unit, const ToolCall& call) {
  const bool stops = call.verb == "invoke" ? json::get_string(call.arguments, "action") == "stop"
                                           : !json::get_bool(call.arguments, "enabled").value_or(true);
  if (!stops) return {};
  const bool force = json::get_bool(call.arguments, "force").value_or(false);
  const bool confirmed = json::get_bool(call.arguments, "confirm_breaking_dependencies").value_or(false);
  if (force && !confirmed) {
    return invalid_argument("force needs confirm_breaking_dependencies=true",
                            "pass both force=true and confirm_breaking_dependencies=true, or neither");
  }
  if (force) return {};
  const auto running = unit.active_dependents();
  if (!running) return running.error();
  const std::vector<std::string>& dependents = *running;
  if (dependents.empty()) return {};
  return ErrorEnvelope(ErrorCode::kBadRequest,
                       dependents_message(dependents, std::to_string(dependents.size()) + " active services depend on the unit"),
                       "stop the dependent services first, or use force=true with confirm_breaking_dependencies=true");
}

Result<json::Document> ServiceHandler::run(const ToolCall& call) {
  std::lock_guard lock(mutex_);
  if (call.verb == "get") {
    const auto status = unit_->status();
    if (!status) return status.error();
    return service_status_json(*status);
  }
  if (Status allowed = refuse_breaking_dependents(*unit_, call); !allowed) return allowed.error();
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  if (call.verb == "set") {
    if (Status set = unit_->set_enabled(call.arguments["enabled"].GetBool()); !set) return set.error();
    const auto status = unit_->status();
    if (!status) return status.error();
    const ServiceStatus& after = *status;
    d.AddMember("service_name", json::string_value(after.name, a), a);
    d.AddMember("enabled", after.enabled, a);
    d.AddMember("unit_file_state", json::string_value(after.unit_file_state.empty() ? "invalid" : after.unit_file_state, a), a);
    return d;
  }
  const std::string_view action = json::get_string(call.arguments, "action").value_or("");
  const auto before = unit_->status();
  if (!before) return before.error();
  if (Status acted = unit_->act(action); !acted) return acted.error();
  const auto after = unit_->status();
  if (!after) return after.error();
  d.AddMember("service_name", json::string_value(after->name, a), a);
  d.AddMember("action", json::string_value(action, a), a);
  d.AddMember("status", json::string_value(after->status, a), a);
  d.AddMember("previous_status", json::string_value(before->status, a), a);
  d.AddMember("timestamp", json::string_value(iso_utc_from_ms(now_ms()), a), a);
  return d;
}

}  // namespace fleetmcp::device
