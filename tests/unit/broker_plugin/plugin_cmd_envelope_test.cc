// The plugin's side of the command envelopes (broker_plugin/calls/cmd_envelope.h): the cmd it writes and
// the cmd_ack it reads.
#include "broker_plugin/calls/cmd_envelope.h"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace fleetmcp::plugin {
namespace {

// The cmd as RapidJSON's Writer wrote it before cmd_envelope appended it by hand: same bytes.
std::string written_by_writer(std::string_view msg_id, int64_t ts_ms, int64_t deadline_ms, std::string_view tool,
                              std::string_view arguments_json) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const auto size = [](std::string_view s) { return static_cast<rapidjson::SizeType>(s.size()); };
  w.StartObject();
  w.Key("type");
  w.String("cmd");
  w.Key("msg_id");
  w.String(msg_id.data(), size(msg_id));
  w.Key("ts_ms");
  w.Int64(ts_ms);
  w.Key("deadline_ms");
  w.Int64(deadline_ms);
  w.Key("payload");
  w.StartObject();
  w.Key("tool");
  w.String(tool.data(), size(tool));
  w.Key("arguments");
  w.RawValue(arguments_json.data(), arguments_json.size(), rapidjson::kObjectType);
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

TEST(PluginCmdEnvelope, IsTheBytesRapidJsonsWriterWrote) {
  const std::string args = R"({"message":"hi \"there\"","n":[1,2.5,{"x":null}]})";
  for (const auto& [ts, deadline] : {std::pair<int64_t, int64_t>{1732500000123, 2000}, {0, 0}, {-5, 9223372036854775807}}) {
    EXPECT_EQ(cmd_envelope("01HZX9K3M4P7Q8R9S0T1V2W3XY", ts, deadline, "system.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke", args),
              written_by_writer("01HZX9K3M4P7Q8R9S0T1V2W3XY", ts, deadline, "system.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke",
                                args));
  }
  EXPECT_EQ(cmd_envelope("M\"1", 1, 2, "tool\\with\ncontrol", "{}"), written_by_writer("M\"1", 1, 2, "tool\\with\ncontrol", "{}"));
  const auto parsed = json::parse_strict(cmd_envelope("M1", 1, 2, "t", args));
  EXPECT_EQ(json::to_string(parsed["payload"]["arguments"]), json::to_string(json::parse_strict(args)));
}

class PluginCmdAck : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { schemas_ = SchemaRegistry::load(SchemaRegistry::default_dir()); }
  static inline std::shared_ptr<const SchemaRegistry> schemas_;
  json::ParseArena arena_;
};

constexpr std::string_view kOkAck =
    R"({"type":"cmd_ack","msg_id":"01HZX9K3M4P7Q8R9S0T1V2W3XY","in_reply_to":"01HZX9K3M4P7Q8R9S0T1V2W3XZ",)"
    R"("payload":{"ok":true,"result":{"message":"hi","node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy"}}})";

TEST_F(PluginCmdAck, ReadsAnOkAckIntoTheArena) {
  const auto ack = parse_cmd_ack(kOkAck, *schemas_, arena_);
  ASSERT_TRUE(ack);
  EXPECT_TRUE(ack->ok);
  EXPECT_EQ(ack->in_reply_to, "01HZX9K3M4P7Q8R9S0T1V2W3XZ");
  ASSERT_NE(ack->result, nullptr);
  EXPECT_EQ(json::to_string(*ack->result), R"({"message":"hi","node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy"})");
}

TEST_F(PluginCmdAck, ReadsOneAckAfterAnotherInTheSameArena) {
  const std::string error_ack =
      R"({"type":"cmd_ack","msg_id":"01HZX9K3M4P7Q8R9S0T1V2W3XY","in_reply_to":"01HZX9K3M4P7Q8R9S0T1V2W3X0",)"
      R"("payload":{"ok":false,"error":{"code":"E_RATE_LIMITED","message":"device text","suggested_fix":"x",)"
      R"("retry_after_ms":1500}}})";
  for (int round = 0; round < 3; ++round) {
    const auto ok = parse_cmd_ack(kOkAck, *schemas_, arena_);
    ASSERT_TRUE(ok);
    EXPECT_EQ(json::get_string(*ok->result, "message").value_or(""), "hi");
    const auto refused = parse_cmd_ack(error_ack, *schemas_, arena_);
    ASSERT_TRUE(refused);
    EXPECT_FALSE(refused->ok);
    EXPECT_EQ(refused->in_reply_to, "01HZX9K3M4P7Q8R9S0T1V2W3X0");
    EXPECT_EQ(refused->error.code, ErrorCode::kRateLimited);
    EXPECT_EQ(refused->error.retry_after_ms, 1500);
    EXPECT_EQ(refused->error.message.find("device text"), std::string::npos) << "server-templated";
    EXPECT_FALSE(parse_cmd_ack(R"({"type":"cmd_ack"})", *schemas_, arena_));
    EXPECT_FALSE(parse_cmd_ack(R"({"type":"cmd_ack","type":"cmd_ack"})", *schemas_, arena_));
  }
}

}  // namespace
}  // namespace fleetmcp::plugin
