#include "broker_plugin/calls/cmd_envelope.h"

namespace fleetmcp::plugin {
namespace {

constexpr std::string_view kCmdAckSchema = "mcp://schemas/cmd_ack@1.0.0";

bool says_not_run(ErrorCode code, const json::Value& error) {
  return code == ErrorCode::kDeadlineExceeded &&
         json::get_string(error, "message").value_or("").starts_with(kNotRunPrefix);
}

ErrorEnvelope templated_device_error(ErrorCode code, bool not_run, const json::Value& error) {
  if (not_run) {
    return ErrorEnvelope(code, "the device received the command after its deadline and did not run it",
                         "nothing was changed; retry the call if it is still wanted");
  }
  ErrorEnvelope envelope(code, "the device refused the call with " + std::string(error_code_name(code)),
                         code == ErrorCode::kRateLimited ? "retry after retry_after_ms"
                                                         : "check the arguments and the node's state, then retry");
  if (const auto retry = json::get_int64(error, "retry_after_ms"); retry && *retry >= 0) envelope.retry_after_ms = retry;
  return envelope;
}

}  // namespace

std::string cmd_envelope(std::string_view msg_id, int64_t ts_ms, int64_t deadline_ms, std::string_view tool,
                         std::string_view arguments_json) {
  // Appended to one string reserved up front (the bytes RapidJSON's Writer wrote for it, without
  // its buffer, its copy and its character-at-a-time raw value: one cmd per call).
  std::string cmd;
  cmd.reserve(96 + msg_id.size() + tool.size() + arguments_json.size());
  cmd += R"({"type":"cmd","msg_id":)";
  json::append_string(cmd, msg_id);
  cmd += R"(,"ts_ms":)";
  json::append_integer(cmd, ts_ms);
  cmd += R"(,"deadline_ms":)";
  json::append_integer(cmd, deadline_ms);
  cmd += R"(,"payload":{"tool":)";
  json::append_string(cmd, tool);
  cmd += R"(,"arguments":)";
  cmd += arguments_json;
  cmd += "}}";
  return cmd;
}

std::optional<CmdAck> parse_cmd_ack(std::string_view payload, const SchemaRegistry& schemas, json::ParseArena& arena) {
  CmdAck ack;
  try {
    ack.doc = json::parse_strict(payload, arena, ErrorCode::kBadRequest, {.max_bytes = kMaxCmdAckBytes, .max_depth = 32});
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
    const json::Value& error = body["error"];
    const auto code = error_code_from_name(json::get_string(error, "code").value_or("")).value_or(ErrorCode::kInternal);
    ack.not_run = says_not_run(code, error);
    ack.error = templated_device_error(code, ack.not_run, error);
  }
  return ack;
}

}  // namespace fleetmcp::plugin
