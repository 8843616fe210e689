// The `cmd` envelope of docs/protocol.md §4 (common/protocol/cmd.h): the bytes the plugin writes, and
// the node's checks: what is dropped (no msg_id to answer), what is refused and with which message.
#include "common/protocol/cmd.h"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "common/base/error.h"
#include "common/base/json.h"

namespace fleetmcp {
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
  auto cmd = read_cmd(text);
  EXPECT_TRUE(cmd.ok()) << cmd.error().message;
  if (!cmd) return "dropped";
  const auto env = check_cmd_envelope(*cmd);
  if (env) return "";
  EXPECT_EQ(env.error().code, ErrorCode::kBadRequest);
  EXPECT_FALSE(env.error().suggested_fix.empty());
  return env.error().message;
}

TEST(CmdEnvelope, AcceptsTheDesignExample) {
  auto cmd = read_cmd(cmd_text());
  ASSERT_TRUE(cmd) << cmd.error().message;
  const CmdEnvelope env = check_cmd_envelope(*cmd).value();
  EXPECT_EQ(env.msg_id, kMsgId);
  EXPECT_EQ(env.ts_ms, 1763800000000);
  EXPECT_EQ(env.deadline_ms, 2000);
  EXPECT_EQ(env.tool, kTool);
  ASSERT_NE(env.arguments, nullptr);
  EXPECT_EQ(json::get_string(*env.arguments, "message"), "ping");
}

TEST(CmdEnvelope, DropsWhatCannotBeAnswered) {
  const auto not_json = read_cmd("this is not json");
  ASSERT_FALSE(not_json);
  EXPECT_NE(not_json.error().message.find("invalid JSON"), std::string::npos) << not_json.error().message;
  const auto no_msg_id = read_cmd(R"({"type":"cmd","payload":{}})");
  ASSERT_FALSE(no_msg_id);
  EXPECT_EQ(no_msg_id.error().message, "no msg_id that is an uppercase ULID");
  EXPECT_FALSE(read_cmd(R"({"type":"cmd","msg_id":"01jd3x4m5n6p7q8r9s0t1v2w3x"})"));  // lowercase
  EXPECT_FALSE(read_cmd(R"(["cmd"])"));
  EXPECT_FALSE(read_cmd(R"({"msg_id":"01JD3X4M5N6P7Q8R9S0T1V2W3X","msg_id":"01JD3X4M5N6P7Q8R9S0T1V2W3Y"})"));
  EXPECT_FALSE(read_cmd(std::string(kMaxCmdParseBytes + 1, ' ')));
}

TEST(CmdEnvelope, OversizeIsRefusedWithItsMsgId) {
  const std::string big = cmd_text(kTool, R"({"message":")" + std::string(70'000, 'a') + R"("})");
  auto cmd = read_cmd(big);
  ASSERT_TRUE(cmd) << cmd.error().message;
  EXPECT_EQ(cmd->msg_id, kMsgId);
  const auto env = check_cmd_envelope(*cmd);
  ASSERT_FALSE(env) << "oversize accepted";
  EXPECT_EQ(env.error().code, ErrorCode::kBadRequest);
  EXPECT_EQ(env.error().message, "cmd of " + std::to_string(big.size()) + " bytes exceeds the device limit of 65536 bytes");
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

// The cmd as RapidJSON's Writer wrote it before write_cmd appended it by hand: same bytes.
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

TEST(WriteCmd, IsTheBytesRapidJsonsWriterWrote) {
  const std::string args = R"({"message":"hi \"there\"","n":[1,2.5,{"x":null}]})";
  for (const auto& [ts, deadline] : {std::pair<int64_t, int64_t>{1732500000123, 2000}, {0, 0}, {-5, 9223372036854775807}}) {
    EXPECT_EQ(write_cmd("01HZX9K3M4P7Q8R9S0T1V2W3XY", ts, deadline, "system.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke", args),
              written_by_writer("01HZX9K3M4P7Q8R9S0T1V2W3XY", ts, deadline, "system.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke",
                                args));
  }
  EXPECT_EQ(write_cmd("M\"1", 1, 2, "tool\\with\ncontrol", "{}"), written_by_writer("M\"1", 1, 2, "tool\\with\ncontrol", "{}"));
  const auto parsed = json::parse_strict(write_cmd("M1", 1, 2, "t", args)).value();
  EXPECT_EQ(json::to_string(parsed["payload"]["arguments"]), json::to_string(json::parse_strict(args).value()));
}

// The plugin's writer produces the very bytes of the design example, which
// CmdEnvelope.AcceptsTheDesignExample reads on the node's side: the two sides agree.
TEST(WriteCmd, IsWhatTheNodeReads) {
  EXPECT_EQ(write_cmd(kMsgId, 1763800000000, 2000, kTool, R"({"message":"ping"})"), cmd_text());
}

}  // namespace
}  // namespace fleetmcp
