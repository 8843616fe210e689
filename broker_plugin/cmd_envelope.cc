#include "broker_plugin/cmd_envelope.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace fleetmcp::plugin {
namespace {

constexpr std::string_view kCmdAckSchema = "mcp://schemas/cmd_ack@1.0.0";

ErrorEnvelope templated_device_error(const json::Value& error) {
  const auto code = error_code_from_name(json::get_string(error, "code").value_or("")).value_or(ErrorCode::kInternal);
  ErrorEnvelope envelope(code, "the device refused the call with " + std::string(error_code_name(code)),
                         code == ErrorCode::kRateLimited ? "retry after retry_after_ms"
                                                         : "check the arguments and the node's state, then retry");
  if (const auto retry = json::get_int64(error, "retry_after_ms"); retry && *retry >= 0) envelope.retry_after_ms = retry;
  return envelope;
}

}  // namespace

std::string cmd_envelope(std::string_view msg_id, int64_t ts_ms, int64_t deadline_ms, std::string_view tool,
                         std::string_view arguments_json) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("type");
  w.String("cmd");
  w.Key("msg_id");
  w.String(msg_id.data(), static_cast<rapidjson::SizeType>(msg_id.size()));
  w.Key("ts_ms");
  w.Int64(ts_ms);
  w.Key("deadline_ms");
  w.Int64(deadline_ms);
  w.Key("payload");
  w.StartObject();
  w.Key("tool");
  w.String(tool.data(), static_cast<rapidjson::SizeType>(tool.size()));
  w.Key("arguments");
  w.RawValue(arguments_json.data(), arguments_json.size(), rapidjson::kObjectType);
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::optional<CmdAck> parse_cmd_ack(std::string_view payload, const SchemaRegistry& schemas) {
  CmdAck ack;
  try {
    ack.doc = json::parse_strict(payload, ErrorCode::kBadRequest, {.max_bytes = 256 * 1024, .max_depth = 32});
  } catch (const Error&) {
    return std::nullopt;
  }
  if (schemas.validate(kCmdAckSchema, ack.doc)) return std::nullopt;
  ack.msg_id = json::get_string(ack.doc, "msg_id").value_or("");
  ack.in_reply_to = json::get_string(ack.doc, "in_reply_to").value_or("");
  const json::Value& body = ack.doc["payload"];
  ack.ok = json::get_bool(body, "ok").value_or(false);
  if (ack.ok) {
    ack.result = &body["result"];
  } else {
    ack.error = templated_device_error(body["error"]);
  }
  return ack;
}

}  // namespace fleetmcp::plugin
