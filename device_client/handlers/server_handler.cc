#include "device_client/handlers/server_handler.h"

#include "common/ids/ulid.h"
#include "device_client/handlers/catalogue_error.h"
#include "device_client/host/iso_time.h"

#ifndef FLEETMCP_VERSION
#define FLEETMCP_VERSION "0.0.0"
#endif

namespace fleetmcp::device {

ServerHandler::ServerHandler(const NodeServices& services, std::unique_ptr<ServiceControl> update_unit)
    : ToolHandler(SafetyClass::kReversible, {"get", "invoke"}), services_(services), update_unit_(std::move(update_unit)) {}

json::Document ServerHandler::status() {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("version", json::string_value(FLEETMCP_VERSION, a), a);
  d.AddMember("build", json::string_value(__DATE__, a), a);
  d.AddMember("started_at", json::string_value(iso_utc_from_ms(services_.started_at_ms), a), a);
  rapidjson::Value summary(rapidjson::kObjectType);
  summary.AddMember("node_id", json::string_value(services_.node_id, a), a);
  summary.AddMember("capabilities", static_cast<uint64_t>(services_.capability_count), a);
  summary.AddMember("simulated", services_.simulated, a);
  summary.AddMember("self_update", rapidjson::StringRef(update_unit_ ? "systemd_unit" : "disabled"), a);
  d.AddMember("config_summary", summary, a);
  if (last_update_) {
    rapidjson::Value s(rapidjson::kObjectType);
    s.AddMember("status", json::string_value(last_update_->status, a), a);
    s.AddMember("started_at", json::string_value(iso_utc_from_ms(last_update_->started_at_ms), a), a);
    s.AddMember("message", json::string_value(last_update_->message, a), a);
    d.AddMember("last_update", s, a);
  }
  return d;
}

json::Document ServerHandler::update(const json::Value&) {
  if (!update_unit_) {
    throw failed_precondition("self-update is not configured on this device",
                              "the device operator installs an update unit and sets update_unit= on this capability");
  }
  const int64_t started = now_ms();
  update_unit_->act("start");
  last_update_ = LastUpdate{"pending", started, "update unit started"};
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("old_version", json::string_value(FLEETMCP_VERSION, a), a);
  d.AddMember("new_version", rapidjson::Value(), a);  // known only once the unit has run
  rapidjson::Value s(rapidjson::kObjectType);
  s.AddMember("status", "pending", a);
  s.AddMember("started_at", json::string_value(iso_utc_from_ms(started), a), a);
  s.AddMember("finished_at", rapidjson::Value(), a);
  s.AddMember("message", "update unit started", a);
  d.AddMember("status", s, a);
  return d;
}

json::Document ServerHandler::run(const ToolCall& call) {
  std::lock_guard lock(mutex_);
  return call.verb == "get" ? status() : update(call.arguments);
}

}  // namespace fleetmcp::device
