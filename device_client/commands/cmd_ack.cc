#include "device_client/commands/cmd_ack.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace fleetmcp::device {
namespace {

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

}  // namespace

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

}  // namespace fleetmcp::device
