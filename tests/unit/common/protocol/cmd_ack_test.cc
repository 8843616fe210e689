// The `cmd_ack` envelope of docs/protocol.md §4 (common/protocol/cmd_ack.h): every ack the node writes
// validates against mcp://schemas/cmd_ack@1.0.0, and the plugin's reader takes it apart.
#include "common/protocol/cmd_ack.h"

#include <gtest/gtest.h>

#include <string>

#include "common/base/error.h"
#include "common/base/json.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp {
namespace {

constexpr const char* kMsgId = "01JD3X4M5N6P7Q8R9S0T1V2W3X";

class CmdAckSchema : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { schemas_ = SchemaRegistry::load(FLEETMCP_SOURCE_DIR "/schemas"); }
  static std::shared_ptr<const SchemaRegistry> schemas_;

  void expect_valid(const std::string& ack) {
    const json::Document doc = json::parse_strict(ack).value();
    const auto failure = schemas_->validate("mcp://schemas/cmd_ack@1.0.0", doc);
    EXPECT_FALSE(failure) << ack << "\n" << failure->path << ": " << failure->message;
  }
};
std::shared_ptr<const SchemaRegistry> CmdAckSchema::schemas_;

TEST_F(CmdAckSchema, OkAndErrorAcksAreValid) {
  const json::Document result = json::parse_strict(R"({"message":"ping","received_at_ms":1763800000012})").value();
  const std::string ok = ok_ack("01JD3X4M5N6P7Q8R9S0T1V2W40", kMsgId, result);
  EXPECT_EQ(ok, std::string(R"({"type":"cmd_ack","msg_id":"01JD3X4M5N6P7Q8R9S0T1V2W40","in_reply_to":")") + kMsgId +
                    R"(","payload":{"ok":true,"result":{"message":"ping","received_at_ms":1763800000012}}})");
  expect_valid(ok);

  ErrorEnvelope busy(ErrorCode::kRateLimited, "busy", "retry after retry_after_ms");
  busy.retry_after_ms = 120;
  const std::string err = error_ack("01JD3X4M5N6P7Q8R9S0T1V2W41", kMsgId, busy);
  expect_valid(err);
  const json::Document doc = json::parse_strict(err).value();
  EXPECT_EQ(json::get_bool(doc["payload"], "ok"), false);
  EXPECT_EQ(json::get_string(doc["payload"]["error"], "code"), "E_RATE_LIMITED");
  EXPECT_EQ(json::get_int64(doc["payload"]["error"], "retry_after_ms"), 120);
}

class ReadCmdAck : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { schemas_ = SchemaRegistry::load(SchemaRegistry::default_dir()); }
  static inline std::shared_ptr<const SchemaRegistry> schemas_;
  json::ParseArena arena_;
};

constexpr std::string_view kOkAck =
    R"({"type":"cmd_ack","msg_id":"01HZX9K3M4P7Q8R9S0T1V2W3XY","in_reply_to":"01HZX9K3M4P7Q8R9S0T1V2W3XZ",)"
    R"("payload":{"ok":true,"result":{"message":"hi","node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy"}}})";

TEST_F(ReadCmdAck, ReadsAnOkAckIntoTheArena) {
  const auto ack = parse_cmd_ack(kOkAck, *schemas_, arena_);
  ASSERT_TRUE(ack);
  EXPECT_TRUE(ack->ok);
  EXPECT_EQ(ack->in_reply_to, "01HZX9K3M4P7Q8R9S0T1V2W3XZ");
  ASSERT_NE(ack->result, nullptr);
  EXPECT_EQ(json::to_string(*ack->result), R"({"message":"hi","node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy"})");
}

TEST_F(ReadCmdAck, ReadsOneAckAfterAnotherInTheSameArena) {
  const std::string refusal_ack =
      R"({"type":"cmd_ack","msg_id":"01HZX9K3M4P7Q8R9S0T1V2W3XY","in_reply_to":"01HZX9K3M4P7Q8R9S0T1V2W3X0",)"
      R"("payload":{"ok":false,"error":{"code":"E_RATE_LIMITED","message":"device text","suggested_fix":"x",)"
      R"("retry_after_ms":1500}}})";
  for (int round = 0; round < 3; ++round) {
    const auto ok = parse_cmd_ack(kOkAck, *schemas_, arena_);
    ASSERT_TRUE(ok);
    EXPECT_EQ(json::get_string(*ok->result, "message").value_or(""), "hi");
    const auto refused = parse_cmd_ack(refusal_ack, *schemas_, arena_);
    ASSERT_TRUE(refused);
    EXPECT_FALSE(refused->ok);
    EXPECT_EQ(refused->in_reply_to, "01HZX9K3M4P7Q8R9S0T1V2W3X0");
    EXPECT_EQ(refused->code, ErrorCode::kRateLimited);
    EXPECT_EQ(refused->retry_after_ms, 1500);
    EXPECT_FALSE(refused->not_run);
    ASSERT_NE(refused->error, nullptr);
    EXPECT_EQ(json::get_string(*refused->error, "message"), "device text") << "as the device sent it";
    EXPECT_FALSE(parse_cmd_ack(R"({"type":"cmd_ack"})", *schemas_, arena_));
    EXPECT_FALSE(parse_cmd_ack(R"({"type":"cmd_ack","type":"cmd_ack"})", *schemas_, arena_));
  }
}

TEST_F(ReadCmdAck, ReadsWhatTheNodeWrites) {
  const json::Document result = json::parse_strict(R"({"message":"ping"})").value();
  const auto ok = parse_cmd_ack(ok_ack("01JD3X4M5N6P7Q8R9S0T1V2W40", kMsgId, result), *schemas_, arena_);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->ok);
  EXPECT_EQ(ok->msg_id, "01JD3X4M5N6P7Q8R9S0T1V2W40");
  EXPECT_EQ(ok->in_reply_to, kMsgId);
  EXPECT_EQ(json::to_string(*ok->result), R"({"message":"ping"})");

  const ErrorEnvelope late(ErrorCode::kDeadlineExceeded, std::string(kNotRunPrefix) + " the cmd arrived 5 ms late",
                           "nothing was changed");
  const auto not_run = parse_cmd_ack(error_ack("01JD3X4M5N6P7Q8R9S0T1V2W41", kMsgId, late), *schemas_, arena_);
  ASSERT_TRUE(not_run);
  EXPECT_FALSE(not_run->ok);
  EXPECT_EQ(not_run->code, ErrorCode::kDeadlineExceeded);
  EXPECT_TRUE(not_run->not_run);
  EXPECT_FALSE(not_run->retry_after_ms);

  const ErrorEnvelope timed_out(ErrorCode::kDeadlineExceeded, "the handler ran out of time", "retry");
  const auto ran = parse_cmd_ack(error_ack("01JD3X4M5N6P7Q8R9S0T1V2W42", kMsgId, timed_out), *schemas_, arena_);
  ASSERT_TRUE(ran);
  EXPECT_FALSE(ran->not_run) << "only the not-run message says the device did not run it";
}

}  // namespace
}  // namespace fleetmcp
