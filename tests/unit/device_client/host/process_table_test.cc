// The process table on the recorded Raspberry Pi tree (tests/fixtures/catalogue/pi): stat lines,
// the list's filters, order and pages, the details.
#include <gtest/gtest.h>

#include "common/protocol/cmd_ack.h"
#include "common/base/file_text.h"
#include "device_client/host/process_table.h"
#include "tests/support/device_client/catalogue_fixtures.h"

namespace fleetmcp::device {
namespace {

using testing::expect_valid;
using testing::kPi;

TEST(CatalogueProcesses, StatLineWithParenthesesInTheName) {
  const auto f = parse_pid_stat(read_file(kPi + "/proc/4242/stat").value());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->comm, "python3 (worker) x");
  EXPECT_EQ(f->state, 'R');
  EXPECT_EQ(f->ppid, 1);
  EXPECT_EQ(f->utime, 61700u);
  EXPECT_EQ(f->nice, 5);
  EXPECT_EQ(f->num_threads, 3);
  EXPECT_EQ(f->rss_pages, 25600u);
  EXPECT_FALSE(parse_pid_stat("4242 python3 R"));
  EXPECT_EQ(process_status('I'), "idle");
  EXPECT_EQ(process_status('D'), "disk-sleep");
}

TEST(CatalogueProcesses, ListFiltersSortsAndPages) {
  ProcessContext ctx = read_process_context(kPi + "/proc");
  ctx.ticks_per_second = 100;  // the recording's USER_HZ
  ctx.page_size = 4096;
  EXPECT_EQ(ctx.boot_time_s, 1763800000);
  const auto all = read_all_processes(ctx);
  ASSERT_EQ(all.size(), 3u);

  auto list = [&](const char* args) {
    json::Document d = process_list_json(all, process_query_from(json::parse_strict(args).value()), 1000);
    expect_valid("process.table.snapshot.output@1.1.0", d);
    return d;
  };
  json::Document d = list(R"({"sort_by":"cpu_percent","sort_order":"desc","limit":2})");
  EXPECT_EQ(d["total_count"].GetInt(), 3);
  EXPECT_EQ(d["returned_count"].GetInt(), 2);
  EXPECT_TRUE(d["has_more"].GetBool());
  EXPECT_EQ(d["processes"][0]["pid"].GetInt(), 4242);
  // (617 + 12.34) s of CPU over the 2345.67 s since it started at tick 1000000: 26.8 %
  EXPECT_DOUBLE_EQ(d["processes"][0]["cpu_percent"].GetDouble(), 26.8);
  EXPECT_EQ(d["processes"][0]["memory_rss"].GetUint64(), 25600u * 4096);
  EXPECT_EQ(d["processes"][0]["cmdline"].Size(), 4u);

  d = list(R"({"limit":2,"offset":2})");
  EXPECT_EQ(d["processes"][0]["pid"].GetInt(), 4242);  // pid order: 1, 77, 4242
  EXPECT_FALSE(d["has_more"].GetBool());
  d = list(R"({"filter":{"name_pattern":"kworker*"}})");
  ASSERT_EQ(d["processes"].Size(), 1u);
  EXPECT_STREQ(d["processes"][0]["status"].GetString(), "idle");
  d = list(R"({"filter":{"status":["running"],"min_memory_mb":50}})");
  ASSERT_EQ(d["processes"].Size(), 1u);
  EXPECT_EQ(d["processes"][0]["pid"].GetInt(), 4242);
  d = list(R"({"filter":{"min_cpu_percent":99}})");
  EXPECT_EQ(d["total_count"].GetInt(), 0);
}

// Doc 05 addendum §2.3's cpu_percent is what the process does now (psutil rates it between two
// readings), not its lifetime average: a daemon idle for an hour and busy now reads busy.
TEST(CatalogueProcesses, CpuPercentIsRatedOverTheRecentWindow) {
  ProcessInfo busy_now;  // an hour old, 36 s of CPU in all, 0.5 s of it in the last second
  busy_now.pid = 10;
  busy_now.name = "daemon";
  busy_now.status = "running";
  busy_now.create_time = 1000;
  busy_now.cpu_user_s = 30;
  busy_now.cpu_system_s = 6;
  busy_now.cpu_percent = 1.0;  // since it started
  ProcessInfo reused = busy_now;  // pid 11 died and was reused inside the window
  reused.pid = 11;
  ProcessInfo fresh = busy_now;  // started inside the window
  fresh.pid = 12;
  fresh.cpu_percent = 40.0;
  std::vector<ProcessInfo> earlier{busy_now, reused};
  earlier[0].cpu_user_s = 29.6;
  earlier[0].cpu_system_s = 5.9;
  earlier[1].create_time = 900;
  std::vector<ProcessInfo> later{busy_now, reused, fresh};
  rate_cpu_over_window(later, earlier, 1.0);
  EXPECT_DOUBLE_EQ(later[0].cpu_percent, 50.0);
  EXPECT_DOUBLE_EQ(later[1].cpu_percent, 1.0);   // another process: its own since-start share
  EXPECT_DOUBLE_EQ(later[2].cpu_percent, 40.0);
  json::Document d = process_list_json(later, process_query_from(json::parse_strict(R"({"sort_by":"cpu_percent","sort_order":"desc"})").value()), 1000);
  expect_valid("process.table.snapshot.output@1.1.0", d);
  EXPECT_EQ(d["processes"][0]["pid"].GetInt(), 10);
  EXPECT_EQ(d["cpu_interval_ms"].GetInt(), 1000);
}

TEST(CatalogueProcesses, DetailsCarryIoCountersAndCpuTimes) {
  ProcessContext ctx = read_process_context(kPi + "/proc");
  ctx.ticks_per_second = 100;
  const auto p = read_process(ctx, 4242, true);
  ASSERT_TRUE(p);
  const json::Document d = process_detail_json(*p);
  expect_valid("process.table.get.output@1.0.0", d);
  EXPECT_EQ(d["io_counters"]["read_count"].GetUint64(), 100u);
  EXPECT_EQ(d["io_counters"]["write_bytes"].GetUint64(), 8192u);
  EXPECT_DOUBLE_EQ(d["cpu_times"]["user"].GetDouble(), 617.0);
  EXPECT_FALSE(read_process(ctx, 999, true));
  // This host's own table, live.
  const ProcessContext live = read_process_context("/proc");
  expect_valid("process.table.snapshot.output@1.1.0",
               process_list_json(read_all_processes(live), process_query_from(json::parse_strict("{}").value()), 1000));
  expect_valid("process.table.get.output@1.0.0", process_detail_json(*read_process(live, getpid(), true)));
}

}  // namespace

TEST(CatalogueProcesses, APageOfLongCommandLinesStopsAtTheCmdAckBudget) {
  std::vector<ProcessInfo> all(500);
  for (size_t i = 0; i < all.size(); ++i) {
    all[i].pid = static_cast<int64_t>(i) + 1;
    all[i].name = "sleep";
    all[i].status = "sleeping";
    all[i].cmdline.assign(64, std::string(512, 'a'));
  }
  const json::Document d = process_list_json(all, process_query_from(json::parse_strict(R"({"limit":500})").value()), 1000);
  expect_valid("process.table.snapshot.output@1.1.0", d);
  EXPECT_LE(json::to_string(d).size(), kMaxResultBytes);
  const int returned = d["returned_count"].GetInt();
  EXPECT_GE(returned, 1);
  EXPECT_LT(returned, 10);
  EXPECT_EQ(d["processes"].Size(), static_cast<unsigned>(returned));
  EXPECT_TRUE(d["has_more"].GetBool());
  EXPECT_EQ(d["total_count"].GetInt(), 500);
}

}  // namespace fleetmcp::device
