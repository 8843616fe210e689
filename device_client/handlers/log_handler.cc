#include "device_client/handlers/log_handler.h"

#include <algorithm>

#include "device_client/base/catalogue_error.h"
#include "device_client/base/result_budget.h"
#include "device_client/host/iso_time.h"

namespace fleetmcp::device {
namespace {

Result<std::optional<int64_t>> time_argument(const json::Value& arguments, const char* name) {
  const auto it = arguments.FindMember(name);
  if (it == arguments.MemberEnd() || it->value.IsNull()) return std::optional<int64_t>();
  const auto ms = ms_from_iso_utc(it->value.GetString());
  if (!ms) {
    return invalid_argument(std::string(name) + " is not an ISO-8601 date-time",
                            "write it like 2025-01-01T12:34:56Z");
  }
  return ms;
}

int int_argument(const json::Value& arguments, const char* name, int fallback) {
  const auto it = arguments.FindMember(name);
  return it != arguments.MemberEnd() && it->value.IsInt() ? it->value.GetInt() : fallback;
}

}  // namespace

Result<LogQuery> log_query_from(const json::Value& arguments) {
  LogQuery q;
  q.max_priority = priority_from_level(json::get_string(arguments, "level").value_or("debug")).value_or(7);
  auto since = time_argument(arguments, "since");
  if (!since) return std::move(since).error();
  auto until = time_argument(arguments, "until");
  if (!until) return std::move(until).error();
  q.since_ms = *since;
  q.until_ms = *until;
  if (q.since_ms && q.until_ms && *q.since_ms > *q.until_ms) {
    return invalid_argument("since is after until", "swap them or drop one");
  }
  q.contains = std::string(json::get_string(arguments, "contains").value_or(""));
  q.unit = std::string(json::get_string(arguments, "unit").value_or(""));
  q.limit = int_argument(arguments, "limit", 100);
  q.offset = int_argument(arguments, "offset", 0);
  return q;
}

Result<json::Document> LogHandler::run(const ToolCall& call) {
  const auto query = log_query_from(call.arguments);
  if (!query) return query.error();
  if (!query->unit.empty() && std::find(units_.begin(), units_.end(), query->unit) == units_.end()) {
    std::string listed;
    for (const std::string& unit : units_) listed += (listed.empty() ? "" : ", ") + unit;
    return permission_denied("unit is not one of the units this capability reads", "use one of: " + listed + ", or leave unit out");
  }
  const auto queried = source_->query(*query);
  if (!queried) return queried.error();
  const LogPage& page = *queried;
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value entries(rapidjson::kArrayType);
  // 500 lines of 2,048 bytes are ~1 MB: the page ends where the cmd_ack's budget does, and has_more
  // sends the caller on with offset + returned_count (issue 33 item 3).
  ResultBudget budget;
  bool has_more = page.has_more;
  for (const LogEntry& e : page.entries) {
    rapidjson::Value v(rapidjson::kObjectType);
    v.AddMember("timestamp", json::string_value(iso_utc_from_ms(e.ts_ms), a), a);
    v.AddMember("level", json::string_value(level_name(e.priority), a), a);
    if (!e.unit.empty()) v.AddMember("unit", json::string_value(e.unit.substr(0, 256), a), a);
    v.AddMember("message", json::string_value(e.message, a), a);
    if (!budget.take(v)) {
      has_more = true;
      break;
    }
    entries.PushBack(v, a);
  }
  const int returned = static_cast<int>(entries.Size());
  d.AddMember("entries", entries, a);
  d.AddMember("returned_count", returned, a);
  d.AddMember("has_more", has_more, a);
  return d;
}

}  // namespace fleetmcp::device
