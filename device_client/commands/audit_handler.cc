#include "device_client/commands/audit_handler.h"

#include <charconv>

#include "device_client/host/iso_time.h"

namespace fleetmcp::device {

Result<json::Document> AuditHandler::run(const ToolCall& call) {
  const size_t limit = static_cast<size_t>(json::get_int64(call.arguments, "limit").value_or(50));
  std::optional<uint64_t> before;
  if (const auto cursor = json::get_string(call.arguments, "cursor")) {
    uint64_t seq = 0;
    std::from_chars(cursor->data(), cursor->data() + cursor->size(), seq);  // digits: the input schema's pattern
    before = seq;
  }
  const CommandAudit::Page page = audit_.newest_first(before, limit);

  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value entries(rapidjson::kArrayType);
  for (const AuditEntry& e : page.entries) {
    rapidjson::Value v(rapidjson::kObjectType);
    v.AddMember("seq", e.seq, a);
    v.AddMember("timestamp", json::string_value(iso_utc_from_ms(e.received_ms), a), a);
    v.AddMember("msg_id", json::string_value(e.msg_id, a), a);
    v.AddMember("cap_id", json::string_value(e.cap_id, a), a);
    v.AddMember("verb", json::string_value(e.verb, a), a);
    v.AddMember("outcome", json::string_value(e.outcome, a), a);
    v.AddMember("duration_ms", e.duration_ms, a);
    entries.PushBack(v, a);
  }
  d.AddMember("entries", entries, a);
  if (page.next_before) {
    d.AddMember("next_cursor", json::string_value(std::to_string(*page.next_before), a), a);
  } else {
    d.AddMember("next_cursor", rapidjson::Value(), a);
  }
  d.AddMember("retained", static_cast<uint64_t>(page.retained), a);
  d.AddMember("capacity", static_cast<uint64_t>(audit_.most_retained()), a);
  return d;
}

}  // namespace fleetmcp::device
