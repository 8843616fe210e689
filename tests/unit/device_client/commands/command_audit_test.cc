// CommandAudit (logs.audit, Doc 05 §2.2): cursor paging newest first that new entries do not
// shift, the bound in memory and on disk (two files of at most `capacity` lines), the entries
// read back after a restart with a torn last line skipped, actuations kept apart from reads so a
// read flood cannot push them out, and the dispatcher recording one entry per cmd it answered,
// never the arguments.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/base/error.h"
#include "common/base/file_text.h"
#include "device_client/commands/command_audit.h"

namespace fleetmcp::device {
namespace {

namespace fs = std::filesystem;

AuditEntry entry(int i) {
  return {0, 1763800000000 + i, "01JD3X4M5N6P7Q8R9S0T1V2W3" + std::to_string(i % 10), "blk", "invoke",
          i % 3 == 0 ? "E_RATE_LIMITED" : "ok", i};
}

size_t lines_of(const fs::path& p) {
  const auto text = try_read_file(p.string());
  return text ? static_cast<size_t>(std::count(text->begin(), text->end(), '\n')) : 0;
}

class Audit : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fleetmcp-audit-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(Audit, OffUntilConfiguredAndThenPagesNewestFirstByCursor) {
  CommandAudit audit;
  audit.record(entry(0));
  EXPECT_FALSE(audit.enabled());
  EXPECT_EQ(audit.newest_first(std::nullopt, 10).retained, 0u);

  audit.configure(100, "");
  for (int i = 1; i <= 5; ++i) audit.record(entry(i));
  auto page = audit.newest_first(std::nullopt, 2);
  ASSERT_EQ(page.entries.size(), 2u);
  EXPECT_EQ(page.entries[0].seq, 5u);
  EXPECT_EQ(page.entries[1].seq, 4u);
  ASSERT_TRUE(page.next_before);
  audit.record(entry(6));  // a new entry does not move the next page
  page = audit.newest_first(page.next_before, 2);
  ASSERT_EQ(page.entries.size(), 2u);
  EXPECT_EQ(page.entries[0].seq, 3u);
  EXPECT_EQ(page.entries[1].seq, 2u);
  page = audit.newest_first(page.next_before, 2);
  ASSERT_EQ(page.entries.size(), 1u);
  EXPECT_EQ(page.entries[0].seq, 1u);
  EXPECT_FALSE(page.next_before);
  EXPECT_EQ(page.retained, 6u);
  EXPECT_EQ(audit.newest_first(std::nullopt, 6).next_before, std::nullopt);  // exactly one page
}

TEST_F(Audit, KeepsAtMostCapacityInMemoryAndTwoFilesOfCapacityLinesOnDisk) {
  const fs::path file = dir_ / "audit.jsonl";
  {
    CommandAudit audit;
    audit.configure(10, file.string());
    for (int i = 1; i <= 25; ++i) audit.record(entry(i));
    const auto page = audit.newest_first(std::nullopt, 100);
    EXPECT_EQ(page.retained, 10u);
    EXPECT_EQ(page.entries.back().seq, 16u);
    EXPECT_EQ(lines_of(file.string() + ".1"), 10u);  // seq 11..20
    EXPECT_EQ(lines_of(file), 5u);                   // seq 21..25
  }
  std::ofstream(file, std::ios::app) << R"({"seq":26,"received_ms":17638)";  // a power cut mid-write
  CommandAudit again;
  again.configure(10, file.string());
  auto page = again.newest_first(std::nullopt, 100);
  ASSERT_EQ(page.entries.size(), 10u);
  EXPECT_EQ(page.entries.front().seq, 25u);
  EXPECT_EQ(page.entries.front().outcome, "ok");
  EXPECT_EQ(page.entries.front().duration_ms, 25);
  EXPECT_EQ(page.entries.back().seq, 16u);
  again.record(entry(26));
  EXPECT_EQ(again.newest_first(std::nullopt, 1).entries.front().seq, 26u);  // numbering goes on
}

// The disk goes away under a running node: the rotation cannot open a new file, and the audit goes
// on in memory; recording never fails the command it audits.
TEST_F(Audit, AFileThatCannotBeReopenedAtRotationLeavesTheAuditInMemory) {
  CommandAudit audit;
  audit.configure(3, (dir_ / "audit.jsonl").string());
  fs::remove_all(dir_);  // the next rotation's rename and open both fail
  for (int i = 1; i <= 7; ++i) EXPECT_NO_THROW(audit.record(entry(i)));
  const auto page = audit.newest_first(std::nullopt, 10);
  ASSERT_EQ(page.entries.size(), 3u);
  EXPECT_EQ(page.entries.front().seq, 7u);
  EXPECT_FALSE(fs::exists(dir_));
}

// Issue 33 item 6: cheap reads, audited themselves, pushed another caller's actuation out of a
// single ring within seconds. Actuations have their own ring, in memory and on disk; pages still
// merge both newest first, and the cursor walks across them.
TEST_F(Audit, AReadFloodDoesNotPushAnActuationOut) {
  const fs::path file = dir_ / "audit.jsonl";
  AuditEntry set = entry(1);
  set.cap_id = "gpio17";
  set.verb = "set";
  set.acts = is_actuation(SafetyClass::kPhysicalActuation, "set");
  {
    CommandAudit audit;
    audit.configure(10, file.string());
    audit.record(set);
    for (int i = 2; i <= 40; ++i) {
      AuditEntry read = entry(i);
      read.verb = "get";
      read.acts = is_actuation(SafetyClass::kPhysicalActuation, "get");
      audit.record(read);
    }
    const auto page = audit.newest_first(std::nullopt, 100);
    ASSERT_EQ(page.retained, 11u);  // ten reads, one actuation
    EXPECT_EQ(page.entries.front().seq, 40u);
    EXPECT_EQ(page.entries.back().seq, 1u);
    EXPECT_EQ(page.entries.back().cap_id, "gpio17");
    EXPECT_EQ(page.entries[page.entries.size() - 2].seq, 31u);  // newest first across both rings
    const auto first = audit.newest_first(std::nullopt, 10);
    ASSERT_TRUE(first.next_before);
    const auto second = audit.newest_first(first.next_before, 10);
    ASSERT_EQ(second.entries.size(), 1u);
    EXPECT_EQ(second.entries.front().verb, "set");
  }
  CommandAudit again;  // and after a restart, from the actuations' own file
  again.configure(10, file.string());
  const auto page = again.newest_first(std::nullopt, 100);
  ASSERT_EQ(page.retained, 11u);
  EXPECT_EQ(page.entries.back().cap_id, "gpio17");
  EXPECT_TRUE(page.entries.back().acts);
  again.record(entry(41));
  EXPECT_EQ(again.newest_first(std::nullopt, 1).entries.front().seq, 41u);  // numbering goes on
}

TEST(AuditKinds, OnlySetsAndInvokesOfCapabilitiesThatAreNotReadOnlyAreActuations) {
  EXPECT_TRUE(is_actuation(SafetyClass::kPhysicalActuation, "set"));
  EXPECT_TRUE(is_actuation(SafetyClass::kReversible, "invoke"));
  EXPECT_FALSE(is_actuation(SafetyClass::kPhysicalActuation, "get"));
  EXPECT_FALSE(is_actuation(SafetyClass::kReadOnly, "invoke"));  // system.echo
}

TEST_F(Audit, ALineRoundTripsAndHoldsOnlyTheAuditFields) {
  const AuditEntry e = entry(7);
  const std::string line = CommandAudit::to_line(e);
  EXPECT_EQ(line, R"({"seq":0,"received_ms":1763800000007,"msg_id":"01JD3X4M5N6P7Q8R9S0T1V2W37","cap_id":"blk",)"
                  R"("verb":"invoke","outcome":"ok","duration_ms":7})");
  const auto back = CommandAudit::from_line(line);
  EXPECT_FALSE(back);  // seq 0 is never written
  AuditEntry numbered = e;
  numbered.seq = 3;
  const auto read = CommandAudit::from_line(CommandAudit::to_line(numbered));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->msg_id, e.msg_id);
  EXPECT_EQ(read->received_ms, e.received_ms);
  EXPECT_FALSE(CommandAudit::from_line("not json"));
}

TEST_F(Audit, AnUnwritableFileIsAConfigurationError) {
  CommandAudit audit;
  EXPECT_THROW(audit.configure(10, (dir_ / "missing-dir" / "audit.jsonl").string()), Error);
}

}  // namespace
}  // namespace fleetmcp::device
