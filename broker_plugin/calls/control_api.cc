#include "broker_plugin/calls/control_api.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/base/json.h"

namespace fleetmcp::plugin {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

ControlRefusal bad_request(const std::string& what, std::string id = {}) {
  return {std::move(id),
          ErrorEnvelope(ErrorCode::kBadRequest, "control request: " + what,
                        "publish {\"id\",\"tool\",\"arguments\"} or {\"id\",\"command\":\"counters\"|\"nodes\"} "
                        "on $CONTROL/fleetmcp/v1")};
}

void put_string(Writer& w, const char* key, std::string_view value) {
  w.Key(key);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void start_answer(Writer& w, std::string_view id, bool ok) {
  w.StartObject();
  put_string(w, "id", id);
  w.Key("ok");
  w.Bool(ok);
}

std::string finish(rapidjson::StringBuffer& buf) { return std::string(buf.GetString(), buf.GetSize()); }

}  // namespace

Result<ControlRequest, ControlRefusal> parse_control_request(std::string_view payload) {
  const auto parsed = json::parse_strict(payload, ErrorCode::kBadRequest, {.max_bytes = 64 * 1024, .max_depth = 32});
  if (!parsed) return bad_request(parsed.error().message);
  const json::Document& doc = *parsed;
  if (!doc.IsObject()) return bad_request("not a JSON object");
  const std::string_view raw_id = json::get_string(doc, "id").value_or("");
  if (raw_id.size() > 64) return bad_request("id is longer than 64 characters");
  const std::string id = ascii_clamp(raw_id, 64);
  if (const auto command = json::get_string(doc, "command")) {
    if (*command != "counters" && *command != "nodes") return bad_request("unknown command", id);
    return ControlRequest(ControlCommand{id, std::string(*command)});
  }
  const auto tool = json::get_string(doc, "tool");
  if (!tool) return bad_request("no tool and no command", id);
  const json::Value* arguments = json::find(doc, "arguments");
  if (arguments != nullptr && !arguments->IsObject()) return bad_request("arguments is not an object", id);
  return ControlRequest(ControlCall{id, std::string(*tool), arguments ? json::to_string(*arguments) : "{}"});
}

std::string control_error(std::string_view id, const ErrorEnvelope& error) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  start_answer(w, id, false);
  w.Key("error");
  const std::string envelope = error.to_json();
  w.RawValue(envelope.data(), envelope.size(), rapidjson::kObjectType);
  w.EndObject();
  return finish(buf);
}

std::string control_call_answer(std::string_view id, std::string_view tool, std::string_view node_id,
                                std::string_view result_json, int64_t latency_ms) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  start_answer(w, id, true);
  put_string(w, "tool", tool);
  put_string(w, "node_id", node_id);
  w.Key("result");
  w.RawValue(result_json.data(), result_json.size(), rapidjson::kObjectType);
  w.Key("latency_ms");
  w.Int64(latency_ms);
  w.EndObject();
  return finish(buf);
}

std::string control_command_answer(std::string_view id, std::string_view key, std::string_view body_json) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  start_answer(w, id, true);
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  w.RawValue(body_json.data(), body_json.size(), rapidjson::kObjectType);
  w.EndObject();
  return finish(buf);
}

}  // namespace fleetmcp::plugin
