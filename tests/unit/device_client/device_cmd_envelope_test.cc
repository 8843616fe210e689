// The cmd envelope checks of docs/protocol.md §4 and the cmd_ack the node sends back: what is dropped (no
// msg_id to answer), what is refused and with which message, and that every ack validates against
// mcp://schemas/cmd_ack@1.0.0.
#include <gtest/gtest.h>

#include <string>

#include "common/base/error.h"
#include "common/base/json.h"
#include "common/registry/schema_registry.h"
#include "device_client/commands/cmd_ack.h"
#include "device_client/commands/cmd_envelope.h"

namespace fleetmcp::device {
namespace {

constexpr const char* kMsgId = "01JD3X4M5N6P7Q8R9S0T1V2W3X";
constexpr const char* kTool = "sysecho.01jd3x4m5n6p7q8r9s0t1v2w3x.echo.invoke";

std::string cmd_text(const std::string& tool = kTool, const std::string& arguments = R"({"message":"ping"})",
                     const std::string& extra = "") {
  return std::string(R"({"type":"cmd","msg_id":")") + kMsgId +
         R"(","ts_ms":1763800000000,"deadline_ms":2000,"payload":{"tool":")" + tool +
         R"(","arguments":)" + arguments + "}" + extra + "}";
}

// The refusal message for `text`, or "" when it passes both steps.
std::string refusal(const std::string& text) {
  std::string why;
  auto cmd = read_cmd(text, why);
  EXPECT_TRUE(cmd.has_value()) << why;
  if (!cmd) return "dropped";
  try {
    check_cmd_envelope(*cmd);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadRequest);
    EXPECT_FALSE(e.envelope().suggested_fix.empty());
    return e.envelope().message;
  }
  return "";
}

TEST(CmdEnvelope, AcceptsTheDesignExample) {
  std::string why;
  auto cmd = read_cmd(cmd_text(), why);
  ASSERT_TRUE(cmd) << why;
  const CmdEnvelope env = check_cmd_envelope(*cmd);
  EXPECT_EQ(env.msg_id, kMsgId);
  EXPECT_EQ(env.ts_ms, 1763800000000);
  EXPECT_EQ(env.deadline_ms, 2000);
  EXPECT_EQ(env.tool, kTool);
  ASSERT_NE(env.arguments, nullptr);
  EXPECT_EQ(json::get_string(*env.arguments, "message"), "ping");
}

TEST(CmdEnvelope, DropsWhatCannotBeAnswered) {
  std::string why;
  EXPECT_FALSE(read_cmd("this is not json", why));
  EXPECT_NE(why.find("invalid JSON"), std::string::npos) << why;
  EXPECT_FALSE(read_cmd(R"({"type":"cmd","payload":{}})", why));
  EXPECT_EQ(why, "no msg_id that is an uppercase ULID");
  EXPECT_FALSE(read_cmd(R"({"type":"cmd","msg_id":"01jd3x4m5n6p7q8r9s0t1v2w3x"})", why));  // lowercase
  EXPECT_FALSE(read_cmd(R"(["cmd"])", why));
  EXPECT_FALSE(read_cmd(R"({"msg_id":"01JD3X4M5N6P7Q8R9S0T1V2W3X","msg_id":"01JD3X4M5N6P7Q8R9S0T1V2W3Y"})", why));
  EXPECT_FALSE(read_cmd(std::string(kMaxCmdParseBytes + 1, ' '), why));
}

TEST(CmdEnvelope, OversizeIsRefusedWithItsMsgId) {
  const std::string big = cmd_text(kTool, R"({"message":")" + std::string(70'000, 'a') + R"("})");
  std::string why;
  auto cmd = read_cmd(big, why);
  ASSERT_TRUE(cmd) << why;
  EXPECT_EQ(cmd->msg_id, kMsgId);
  try {
    check_cmd_envelope(*cmd);
    FAIL() << "oversize accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadRequest);
    EXPECT_EQ(e.envelope().message,
              "cmd of " + std::to_string(big.size()) + " bytes exceeds the device limit of 65536 bytes");
  }
}

// `text` with its first `from` replaced by `to`.
std::string swapped(const std::string& text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  std::string out = text.substr(0, at);
  out.append(to);
  out.append(text, at + from.size(), std::string::npos);
  return out;
}

TEST(CmdEnvelope, RefusesEachBrokenField) {
  const std::string t = cmd_text();
  EXPECT_EQ(refusal(swapped(t, "\"cmd\"", "\"ack\"")), "cmd envelope: type must be \"cmd\"");
  EXPECT_EQ(refusal(swapped(t, "1763800000000", "\"now\"")),
            "cmd envelope: ts_ms must be an integer Unix time in ms (>= 1700000000000)");
  EXPECT_EQ(refusal(swapped(t, "1763800000000", "1600000000000")),
            "cmd envelope: ts_ms must be an integer Unix time in ms (>= 1700000000000)");
  EXPECT_EQ(refusal(swapped(t, "2000", "0")),
            "cmd envelope: deadline_ms must be an integer between 1 and 86400000");
  EXPECT_EQ(refusal(cmd_text("sysecho-01jd3x4m5n6p7q8r9s0t1v2w3x-echo-invoke")),
            "cmd envelope: payload.tool must be the dotted four-segment tool name "
            "<kind_short>.<node_id>.<cap_id>.<verb>");
  EXPECT_NE(refusal(cmd_text("sysecho.01jd3x4m5n6p7q8r9s0t1v2w3x.echo")), "");
  EXPECT_NE(refusal(cmd_text("Sysecho.01jd3x4m5n6p7q8r9s0t1v2w3x.echo.invoke")), "");
  EXPECT_NE(refusal(cmd_text("sysecho..echo.invoke.x")), "");
  EXPECT_EQ(refusal(cmd_text(kTool, "[]")), "cmd envelope: payload.arguments must be an object");
  EXPECT_EQ(refusal(cmd_text(kTool, R"({})", R"(,"reply_to":"elsewhere")")),
            "cmd envelope: the cmd has a member that is not in mcp://schemas/cmd@1.0.0");
}

class CmdAckSchema : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { schemas_ = SchemaRegistry::load(FLEETMCP_SOURCE_DIR "/schemas"); }
  static std::shared_ptr<const SchemaRegistry> schemas_;

  void expect_valid(const std::string& ack) {
    const json::Document doc = json::parse_strict(ack);
    const auto failure = schemas_->validate("mcp://schemas/cmd_ack@1.0.0", doc);
    EXPECT_FALSE(failure) << ack << "\n" << failure->path << ": " << failure->message;
  }
};
std::shared_ptr<const SchemaRegistry> CmdAckSchema::schemas_;

TEST_F(CmdAckSchema, OkAndErrorAcksAreValid) {
  const json::Document result = json::parse_strict(R"({"message":"ping","received_at_ms":1763800000012})");
  const std::string ok = ok_ack("01JD3X4M5N6P7Q8R9S0T1V2W40", kMsgId, result);
  EXPECT_EQ(ok, std::string(R"({"type":"cmd_ack","msg_id":"01JD3X4M5N6P7Q8R9S0T1V2W40","in_reply_to":")") + kMsgId +
                    R"(","payload":{"ok":true,"result":{"message":"ping","received_at_ms":1763800000012}}})");
  expect_valid(ok);

  ErrorEnvelope busy(ErrorCode::kRateLimited, "busy", "retry after retry_after_ms");
  busy.retry_after_ms = 120;
  const std::string err = error_ack("01JD3X4M5N6P7Q8R9S0T1V2W41", kMsgId, busy);
  expect_valid(err);
  const json::Document doc = json::parse_strict(err);
  EXPECT_EQ(json::get_bool(doc["payload"], "ok"), false);
  EXPECT_EQ(json::get_string(doc["payload"]["error"], "code"), "E_RATE_LIMITED");
  EXPECT_EQ(json::get_int64(doc["payload"]["error"], "retry_after_ms"), 120);
}

}  // namespace
}  // namespace fleetmcp::device
