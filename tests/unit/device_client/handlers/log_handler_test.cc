// Logs on recorded `journalctl -o export` text (tests/fixtures/catalogue/): the entries, newest first,
// filtering and paging.
#include <gtest/gtest.h>

#include "common/protocol/cmd_ack.h"
#include "common/base/file_text.h"
#include "device_client/backends/log_source.h"
#include "device_client/handlers/log_handler.h"
#include "tests/support/device_client/catalogue_fixtures.h"

namespace fleetmcp::device {
namespace {

using testing::expect_valid;
using testing::kFixtures;

TEST(CatalogueLogs, JournalExportEntries) {
  const auto entries = parse_journal_export(read_file(kFixtures + "/journal_export.txt").value());
  ASSERT_EQ(entries.size(), 13u);
  const LogEntry first = log_entry_from_fields(entries[0]);
  EXPECT_EQ(first.ts_ms, 1763800000000);
  EXPECT_EQ(first.priority, 6);
  EXPECT_EQ(first.unit, "nginx.service");
  EXPECT_EQ(first.message, "event 0 from nginx");
  const LogEntry binary = log_entry_from_fields(entries[12]);  // its MESSAGE was a binary field
  EXPECT_EQ(binary.priority, 3);
  EXPECT_EQ(binary.message, "");

  JournalFields raw{{"MESSAGE", std::string("tab\there\x01 bad \xff byte \xc3\xa9")}, {"PRIORITY", "9"}};
  const LogEntry cleaned = log_entry_from_fields(raw);
  EXPECT_EQ(cleaned.message, "tab\there  bad ? byte \xc3\xa9");
  EXPECT_EQ(cleaned.priority, 6);  // out-of-range priority: the journal's default, info
}

TEST(CatalogueLogs, NewestFirstFilteringAndPaging) {
  const auto fields = parse_journal_export(read_file(kFixtures + "/journal_export.txt").value());
  auto page = [&](LogQuery q) {
    size_t next = fields.size();
    return page_newest_first(q, [&]() -> std::optional<LogEntry> {
      if (next == 0) return std::nullopt;
      return log_entry_from_fields(fields[--next]);
    });
  };
  LogQuery q;
  q.limit = 3;
  LogPage p = page(q);
  ASSERT_EQ(p.entries.size(), 3u);
  EXPECT_TRUE(p.has_more);
  EXPECT_EQ(p.entries[0].ts_ms, 1763800012000);  // newest first
  q.offset = 11;
  p = page(q);
  EXPECT_EQ(p.entries.size(), 2u);
  EXPECT_FALSE(p.has_more);

  q = LogQuery{};
  q.max_priority = *priority_from_level("warning");  // crit (2), err (3), warning (4)
  p = page(q);
  ASSERT_EQ(p.entries.size(), 4u);
  for (const auto& e : p.entries) EXPECT_LE(e.priority, 4);

  q = LogQuery{};
  q.since_ms = 1763800005000;
  q.until_ms = 1763800007000;
  q.contains = "fleetmcp";
  p = page(q);
  ASSERT_EQ(p.entries.size(), 2u);  // events 7 and 5 (6 is nginx's)
  EXPECT_EQ(p.entries[0].message, "event 7 from fleetmcp-device");
  EXPECT_EQ(level_name(2), "crit");

  q = LogQuery{};
  q.unit = "nginx.service";  // logs.journal.get.input@1.1.0
  p = page(q);
  ASSERT_FALSE(p.entries.empty());
  for (const auto& e : p.entries) EXPECT_EQ(e.unit, "nginx.service");
}

// A call's unit narrows the capability's units to one; a unit outside them is refused, naming
// them, rather than answering an empty page the model reads as "that unit logged nothing".
TEST(CatalogueLogs, AUnitNarrowsTheCapabilitysUnitsToOne) {
  const std::vector<std::string> units{"fleetmcp-device.service", "nginx.service"};
  LogHandler logs(make_simulated_log_source(units), units);
  const json::Document args = json::parse_strict(R"({"unit":"nginx.service","limit":20})").value();
  const json::Document d = logs.run({"get", args}).value();
  expect_valid("logs.journal.get.output@1.0.0", d);
  ASSERT_EQ(d["returned_count"].GetInt(), 20);
  for (const auto& e : d["entries"].GetArray()) EXPECT_STREQ(e["unit"].GetString(), "nginx.service");

  const json::Document other = json::parse_strict(R"({"unit":"sshd.service"})").value();
  const auto refused = logs.run({"get", other});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message.rfind("permission_denied: ", 0), 0u) << refused.error().message;
  EXPECT_NE(refused.error().suggested_fix.find("fleetmcp-device.service, nginx.service"), std::string::npos)
      << refused.error().suggested_fix;
}

TEST(CatalogueLogs, APageOfLongLinesStopsAtTheCmdAckBudget) {
  LogHandler logs(make_simulated_log_source({"fleetmcp-device.service"}, kMaxMessage), {"fleetmcp-device.service"});
  auto get = [&](int offset) {
    const json::Document args =
        json::parse_strict(R"({"limit":500,"offset":)" + std::to_string(offset) + "}").value();
    json::Document d = logs.run({"get", args}).value();
    expect_valid("logs.journal.get.output@1.0.0", d);
    EXPECT_LE(ok_ack("01JD3X4M5N6P7Q8R9S0T1V2W31", "01JD3X4M5N6P7Q8R9S0T1V2W32", d).size(), kMaxCmdAckBytes);
    return d;
  };
  const json::Document first = get(0);
  const int returned = first["returned_count"].GetInt();
  EXPECT_GT(returned, 100);
  EXPECT_LT(returned, 500);
  EXPECT_EQ(first["entries"].Size(), static_cast<unsigned>(returned));
  EXPECT_TRUE(first["has_more"].GetBool());
  EXPECT_EQ(std::string(first["entries"][0]["message"].GetString()).size(), kMaxMessage);
  const json::Document next = get(returned);
  EXPECT_GT(next["returned_count"].GetInt(), 100);
  EXPECT_STRNE(next["entries"][0]["timestamp"].GetString(), first["entries"][0]["timestamp"].GetString());
}

}  // namespace
}  // namespace fleetmcp::device
