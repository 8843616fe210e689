#include "common/protocol/cmd.h"

#include <initializer_list>

#include "common/base/error.h"
#include "common/ids/ulid.h"
#include "common/protocol/deadlines.h"

namespace fleetmcp {
namespace {

constexpr int64_t kMinTimestampMs = 1'700'000'000'000;  // mcp://schemas/cmd@1.0.0 ts_ms minimum

ErrorEnvelope bad_envelope(std::string_view what) {
  return ErrorEnvelope(ErrorCode::kBadRequest, "cmd envelope: " + std::string(what),
                       "send {\"type\":\"cmd\",\"msg_id\",\"ts_ms\",\"deadline_ms\",\"payload\":{\"tool\",\"arguments\"}} "
                       "as docs/protocol.md section 4 specifies");
}

// Members outside mcp://schemas/cmd@1.0.0 (additionalProperties: false) are refused, so a field the
// device does not understand (a commit token, a reply topic …) is never silently ignored.
Status reject_unknown_members(const json::Value& object, std::initializer_list<std::string_view> known,
                              std::string_view where) {
  for (const auto& m : object.GetObject()) {
    const std::string_view name(m.name.GetString(), m.name.GetStringLength());
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == name;
    if (!ok) return bad_envelope(std::string(where) + " has a member that is not in mcp://schemas/cmd@1.0.0");
  }
  return {};
}

// ^[a-z0-9_]+(\.[a-z0-9_]+){3}$, at most 64 characters
bool is_dotted_tool_name(std::string_view s) {
  int dots = 0;
  bool segment_empty = true;
  for (char c : s) {
    if (c == '.') {
      if (segment_empty) return false;
      ++dots;
      segment_empty = true;
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') {
      segment_empty = false;
    } else {
      return false;
    }
  }
  return dots == 3 && !segment_empty && s.size() <= 64;
}

}  // namespace

std::string write_cmd(std::string_view msg_id, int64_t ts_ms, int64_t deadline_ms, std::string_view tool,
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

Result<ReceivedCmd> read_cmd(std::string_view payload) {
  constexpr std::string_view kFix = "send a strict JSON cmd object with an uppercase ULID msg_id";
  if (payload.size() > kMaxCmdParseBytes) {
    return ErrorEnvelope(ErrorCode::kBadRequest,
                         "payload of " + std::to_string(payload.size()) + " bytes, too large to look for a msg_id", kFix);
  }
  ReceivedCmd cmd;
  cmd.size = payload.size();
  auto parsed = json::parse_strict(payload, ErrorCode::kBadRequest, {kMaxCmdParseBytes, 64});
  if (!parsed) return std::move(parsed).error();  // parse_strict names the offset, never the bytes
  cmd.doc = std::move(*parsed);
  const auto msg_id = cmd.doc.IsObject() ? json::get_string(cmd.doc, "msg_id") : std::nullopt;
  if (!msg_id || !is_msg_id(*msg_id)) return ErrorEnvelope(ErrorCode::kBadRequest, "no msg_id that is an uppercase ULID", kFix);
  cmd.msg_id = std::string(*msg_id);
  return cmd;
}

Result<CmdEnvelope> check_cmd_envelope(const ReceivedCmd& cmd) {
  if (cmd.size > kMaxCmdBytes) {
    return ErrorEnvelope(ErrorCode::kBadRequest,
                         "cmd of " + std::to_string(cmd.size) + " bytes exceeds the device limit of 65536 bytes",
                         "send smaller arguments; no tool of this node takes more than 64 KiB");
  }
  const json::Value& doc = cmd.doc;
  if (Status known = reject_unknown_members(doc, {"type", "msg_id", "ts_ms", "deadline_ms", "payload"}, "the cmd"); !known) {
    return known.error();
  }
  if (json::get_string(doc, "type") != std::optional<std::string_view>("cmd")) return bad_envelope("type must be \"cmd\"");
  CmdEnvelope env;
  env.msg_id = cmd.msg_id;
  const auto ts = json::get_int64(doc, "ts_ms");
  if (!ts || *ts < kMinTimestampMs) return bad_envelope("ts_ms must be an integer Unix time in ms (>= 1700000000000)");
  const auto deadline = json::get_int64(doc, "deadline_ms");
  if (!deadline || *deadline <= 0 || *deadline > kMaxCmdDeadlineMs) {
    return bad_envelope("deadline_ms must be an integer between 1 and 86400000");
  }
  env.ts_ms = *ts;
  env.deadline_ms = *deadline;
  const json::Value* payload = json::find(doc, "payload");
  if (payload == nullptr || !payload->IsObject()) return bad_envelope("payload must be an object");
  if (Status known = reject_unknown_members(*payload, {"tool", "arguments"}, "payload"); !known) return known.error();
  const auto tool = json::get_string(*payload, "tool");
  if (!tool || !is_dotted_tool_name(*tool)) {
    return bad_envelope("payload.tool must be the dotted four-segment tool name <kind_short>.<node_id>.<cap_id>.<verb>");
  }
  env.tool = std::string(*tool);
  env.arguments = json::find(*payload, "arguments");
  if (env.arguments == nullptr || !env.arguments->IsObject()) return bad_envelope("payload.arguments must be an object");
  return env;
}

}  // namespace fleetmcp
