// The audit line's bytes (docs/protocol.md §7): AuditLog::format writes them by hand; they must be
// exactly what a JSON writer makes of the clamped fields, so tools reading the log see no change.
#include "common/base/audit_log.h"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <filesystem>

#include "common/base/error.h"

namespace fleetmcp {
namespace {

// The line as RapidJSON's Writer makes it of the same fields, each clamped by ascii_clamp.
std::string reference_line(const AuditRecord& r, int64_t now_ms) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("ts_ms");
  w.Int64(now_ms);
  const auto field = [&w](const char* key, std::string_view value) {
    if (value.empty()) return;
    w.Key(key);
    const std::string safe = ascii_clamp(value, 256);
    w.String(safe.data(), static_cast<rapidjson::SizeType>(safe.size()));
  };
  field("via", r.via);
  field("caller", r.caller);
  field("tenant", r.tenant);
  field("topic", r.topic);
  field("tool", r.tool);
  field("node_id", r.node_id);
  field("decision", r.decision);
  field("code", r.code);
  field("reason", r.reason);
  if (r.latency_ms) {
    w.Key("latency_ms");
    w.Int64(*r.latency_ms);
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

TEST(AuditLog, FormatsACallLine) {
  const AuditRecord r{.via = "rfc0009", .caller = "agent-e2e", .tenant = "acme",
                      .tool = "sysecho.01m893n7kxq6fq8v7cks2tsx5q.echo.invoke", .node_id = "01m893n7kxq6fq8v7cks2tsx5q",
                      .decision = "ok", .latency_ms = 2};
  EXPECT_EQ(AuditLog::format(r, 1795602195473),
            R"({"ts_ms":1795602195473,"via":"rfc0009","caller":"agent-e2e","tenant":"acme",)"
            R"("tool":"sysecho.01m893n7kxq6fq8v7cks2tsx5q.echo.invoke","node_id":"01m893n7kxq6fq8v7cks2tsx5q",)"
            R"("decision":"ok","latency_ms":2})");
}

TEST(AuditLog, EscapesAndClampsSpecialCharacters) {
  const AuditRecord r{.caller = "a\"b\\c\nd\x01\x7f\xc3\xa9/e", .topic = "$devices/x/announce", .decision = "refuse",
                      .code = "E_BAD_REQUEST", .reason = "quote \" and backslash \\", .latency_ms = -5};
  EXPECT_EQ(AuditLog::format(r, -1),
            R"({"ts_ms":-1,"caller":"a\"b\\c?d????/e","topic":"$devices/x/announce","decision":"refuse",)"
            R"("code":"E_BAD_REQUEST","reason":"quote \" and backslash \\","latency_ms":-5})");
}

TEST(AuditLog, MatchesAJsonWriterForEveryByteAndLength) {
  std::string every_byte;
  for (int c = 0; c < 256; ++c) every_byte.push_back(static_cast<char>(c));
  const std::string long_quotes(300, '"');
  const std::string long_plain = std::string(255, 'x') + "\"yz";  // the clamp cuts after the quote
  for (const std::string& value : {every_byte, long_quotes, long_plain, std::string("plain")}) {
    const AuditRecord r{.via = "mcp", .caller = value, .tenant = value, .tool = value, .reason = value};
    EXPECT_EQ(AuditLog::format(r, 42), reference_line(r, 42));
  }
  const AuditRecord empty{};
  EXPECT_EQ(AuditLog::format(empty, 0), R"({"ts_ms":0})");
  EXPECT_EQ(AuditLog::format(empty, 0), reference_line(empty, 0));
}

// A rotation (SIGHUP) into a directory that is gone is a value the plugin logs, not an exception
// escaping its reload.
TEST(AuditLog, AReopenThatFailsSaysWhichFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("fleetmcp-audit-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "audit.log").string();
  AuditLog log(path);
  EXPECT_TRUE(log.reopen().ok());
  std::filesystem::remove_all(dir);
  const Status reopened = log.reopen();
  ASSERT_FALSE(reopened.ok());
  EXPECT_EQ(reopened.error().code, ErrorCode::kInternal);
  EXPECT_NE(reopened.error().message.find(path), std::string::npos) << reopened.error().message;
}

}  // namespace
}  // namespace fleetmcp
