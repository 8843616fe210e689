#include "common/protocol/cmd_ack.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/ids/unit_name.h"

namespace fleetmcp {
namespace {

constexpr std::string_view kCmdAckSchema = "mcp://schemas/cmd_ack@1.0.0";

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_string(Writer& w, std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

void begin_ack(Writer& w, std::string_view ack_msg_id, std::string_view in_reply_to, bool ok) {
  w.StartObject();
  w.Key("type");
  w.String("cmd_ack");
  w.Key("msg_id");
  write_string(w, ack_msg_id);
  w.Key("in_reply_to");
  write_string(w, in_reply_to);
  w.Key("payload");
  w.StartObject();
  w.Key("ok");
  w.Bool(ok);
}

std::string end_ack(Writer& w, rapidjson::StringBuffer& buf) {
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

constexpr std::array<std::string_view, 7> kReasonNames = {
    "invalid_argument", "permission_denied", "not_found", "failed_precondition",
    "resource_exhausted", "unavailable", "internal"};

// The reason "<reason>: …" opens `message` with, if it is one of Doc 05's.
std::optional<DeviceReason> reason_of(std::string_view message) {
  const size_t colon = message.find(": ");
  return colon == std::string_view::npos ? std::nullopt : device_reason_from_name(message.substr(0, colon));
}

constexpr std::string_view kDependentsOpen = "dependent_services=[";
// The longest list dependents_message writes: the envelope keeps 512 characters of the message,
// and the reason and <what> need some of them.
constexpr size_t kMaxDependentsText = 384;

// The service names of "dependent_services=[a.service,b.service] …" after the reason; a name that
// is not a service unit name is left out, and so is a list without its closing bracket.
std::vector<std::string> dependents_of(std::string_view after_reason) {
  std::vector<std::string> names;
  if (!after_reason.starts_with(kDependentsOpen)) return names;
  const std::string_view rest = after_reason.substr(kDependentsOpen.size());
  const size_t close = rest.find(']');
  if (close == std::string_view::npos) return names;
  std::string_view list = rest.substr(0, close);
  while (!list.empty() && names.size() < kMaxDependentServices) {
    const size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    if (is_service_unit_name(name)) names.emplace_back(name);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return names;
}

}  // namespace

std::string_view device_reason_name(DeviceReason reason) { return kReasonNames[static_cast<size_t>(reason)]; }

std::optional<DeviceReason> device_reason_from_name(std::string_view name) {
  for (size_t i = 0; i < kReasonNames.size(); ++i) {
    if (kReasonNames[i] == name) return static_cast<DeviceReason>(i);
  }
  return std::nullopt;
}

std::string reasoned_message(DeviceReason reason, std::string_view what) {
  return std::string(device_reason_name(reason)) + ": " + std::string(what);
}

std::string dependents_message(const std::vector<std::string>& services, std::string_view what) {
  std::string list;
  size_t written = 0;
  for (const std::string& name : services) {
    if (written == kMaxDependentServices) break;
    if (!is_service_unit_name(name) || list.size() + name.size() + 1 > kMaxDependentsText) continue;
    if (!list.empty()) list += ',';
    list += name;
    ++written;
  }
  return reasoned_message(DeviceReason::kFailedPrecondition,
                          std::string(kDependentsOpen) + list + "] " + std::string(what));
}

std::string ok_ack(std::string_view ack_msg_id, std::string_view in_reply_to, const json::Value& result) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  begin_ack(w, ack_msg_id, in_reply_to, true);
  w.Key("result");
  result.Accept(w);
  return end_ack(w, buf);
}

std::string error_ack(std::string_view ack_msg_id, std::string_view in_reply_to, const ErrorEnvelope& error) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  begin_ack(w, ack_msg_id, in_reply_to, false);
  w.Key("error");
  const std::string envelope = error.to_json();  // already ASCII-clamped, schema key order
  w.RawValue(envelope.data(), envelope.size(), rapidjson::kObjectType);
  return end_ack(w, buf);
}

std::optional<CmdAck> parse_cmd_ack(std::string_view payload, const SchemaRegistry& schemas, json::ParseArena& arena) {
  auto parsed = json::parse_strict(payload, arena, ErrorCode::kBadRequest, {.max_bytes = kMaxCmdAckBytes, .max_depth = 32});
  if (!parsed) return std::nullopt;
  CmdAck ack;
  ack.doc = std::move(*parsed);
  if (schemas.validate(kCmdAckSchema, ack.doc)) return std::nullopt;
  ack.msg_id = json::get_string(ack.doc, "msg_id").value_or("");
  ack.in_reply_to = json::get_string(ack.doc, "in_reply_to").value_or("");
  const json::Value& body = ack.doc["payload"];
  ack.ok = json::get_bool(body, "ok").value_or(false);
  if (ack.ok) {
    ack.result = &body["result"];
  } else {
    ack.error = &body["error"];
    ack.code = error_code_from_name(json::get_string(*ack.error, "code").value_or("")).value_or(ErrorCode::kInternal);
    if (const auto retry = json::get_int64(*ack.error, "retry_after_ms"); retry && *retry >= 0) ack.retry_after_ms = retry;
    const std::string_view message = json::get_string(*ack.error, "message").value_or("");
    ack.not_run = ack.code == ErrorCode::kDeadlineExceeded && message.starts_with(kNotRunPrefix);
    ack.reason = reason_of(message);
    if (ack.reason == DeviceReason::kFailedPrecondition) {
      ack.dependent_services = dependents_of(message.substr(message.find(": ") + 2));
    }
  }
  return ack;
}

}  // namespace fleetmcp
