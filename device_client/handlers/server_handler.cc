#include "device_client/handlers/server_handler.h"

#include "common/ids/ulid.h"
#include "device_client/base/catalogue_error.h"
#include "device_client/host/iso_time.h"

#ifndef FLEETMCP_VERSION
#define FLEETMCP_VERSION "0.0.0"
#endif

namespace fleetmcp::device {
namespace {

rapidjson::Value optional_text(std::string_view text, json::Allocator& a) {
  return text.empty() ? rapidjson::Value() : json::string_value(text, a);
}

rapidjson::Value optional_time(int64_t ms, json::Allocator& a) {
  return ms ? json::string_value(iso_utc_from_ms(ms), a) : rapidjson::Value();
}

// Schema common_status (Doc 05 §8.4).
rapidjson::Value common_status(const UpdateState& s, json::Allocator& a) {
  rapidjson::Value v(rapidjson::kObjectType);
  v.AddMember("status", json::string_value(s.status, a), a);
  v.AddMember("started_at", optional_time(s.started_at_ms, a), a);
  v.AddMember("finished_at", optional_time(s.finished_at_ms, a), a);
  // apt's message may be localised UTF-8; a byte cut could split a character.
  v.AddMember("message", optional_text(ascii_clamp(s.message, 512), a), a);
  return v;
}

// Doc 05 §2.6.6 check_for_updates, per channel (docs/protocol.md D45): what it offered when the
// update unit last read it. A channel not read yet, or whose read failed, has no latest_version,
// and update_available is then unknown (null).
rapidjson::Value update_check(const std::vector<ChannelOffer>& offers, std::string_view current, json::Allocator& a) {
  rapidjson::Value list(rapidjson::kArrayType);
  for (const ChannelOffer& offer : offers) {
    rapidjson::Value v(rapidjson::kObjectType);
    const bool read = offer.check && offer.check->status == "succeeded" && !offer.check->new_version.empty();
    v.AddMember("channel", json::string_value(offer.channel, a), a);
    v.AddMember("latest_version", optional_text(read ? offer.check->new_version : "", a), a);
    v.AddMember("update_available", read ? rapidjson::Value(offer.check->new_version != current) : rapidjson::Value(), a);
    v.AddMember("last_checked", optional_time(offer.check ? offer.check->finished_at_ms : 0, a), a);
    if (offer.check && !read && !offer.check->message.empty()) {
      v.AddMember("message", json::string_value(ascii_clamp(offer.check->message, 400), a), a);  // why it was not read
    }
    list.PushBack(v, a);
  }
  return list;
}

}  // namespace

ServerHandler::ServerHandler(const NodeServices& services, std::unique_ptr<SelfUpdate> update, std::string version)
    : ToolHandler(SafetyClass::kReversible, {"get", "invoke"}),
      services_(services),
      update_(std::move(update)),
      version_(std::move(version)) {}

Result<json::Document> ServerHandler::status() {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("version", json::string_value(version_, a), a);
  d.AddMember("build", json::string_value(FLEETMCP_VERSION " (" __DATE__ ")", a), a);
  d.AddMember("started_at", json::string_value(iso_utc_from_ms(services_.started_at_ms), a), a);
  rapidjson::Value summary(rapidjson::kObjectType);
  summary.AddMember("node_id", json::string_value(services_.node_id, a), a);
  summary.AddMember("capabilities", static_cast<uint64_t>(services_.capability_count), a);
  summary.AddMember("simulated", services_.simulated, a);
  summary.AddMember("self_update", rapidjson::StringRef(update_ ? "systemd_unit" : "disabled"), a);
  d.AddMember("config_summary", summary, a);
  if (update_) {
    const auto last = update_->last();
    if (!last) return last.error();
    if (*last) d.AddMember("last_update", common_status(**last, a), a);
    const auto offers = update_->offers();
    if (!offers) return offers.error();
    if (!offers->empty()) d.AddMember("update_check", update_check(*offers, version_, a), a);
  }
  return d;
}

Result<json::Document> ServerHandler::update(const json::Value& arguments) {
  if (!update_) {
    return failed_precondition("self-update is not configured on this device",
                               "the device operator sets update_unit=fleetmcp-update.service on this capability "
                               "and configures an update channel (docs/catalogue.md)");
  }
  UpdateRequest request;
  request.channel = json::get_string(arguments, "channel").value_or("stable");
  request.target_version = json::get_string(arguments, "target_version").value_or("");
  const auto started = update_->start(request, version_);
  if (!started) return started.error();
  const UpdateState& state = *started;
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("old_version", json::string_value(version_, a), a);
  d.AddMember("new_version", optional_text(state.new_version, a), a);  // known once the script resolved it
  d.AddMember("status", common_status(state, a), a);
  return d;
}

Result<json::Document> ServerHandler::run(const ToolCall& call) {
  std::lock_guard lock(mutex_);
  if (call.verb == "get") return status();
  return update(call.arguments);
}

}  // namespace fleetmcp::device
