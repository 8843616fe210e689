// /proc parsing for system.metrics (docs/protocol.md D10) on recorded text from a Raspberry Pi 4 (Raspberry
// Pi OS bookworm) and from a Debian server: units, the used = total - available rule, CPU % from
// the delta of two readings (the mounts that count as disks: mount_table_test.cc).
#include <gtest/gtest.h>

#include "device_client/host/proc_text.h"

namespace fleetmcp::device {
namespace {

// Two readings of a Pi 4's /proc/stat, one second apart.
constexpr const char* kStatBefore =
    "cpu  104520 1210 45033 8823112 5021 0 1830 0 0 0\n"
    "cpu0 26001 300 11800 2205000 1300 0 1500 0 0 0\n"
    "cpu1 26173 310 11033 2206040 1240 0 110 0 0 0\n"
    "cpu2 26200 300 11100 2206000 1241 0 110 0 0 0\n"
    "cpu3 26146 300 11100 2206072 1240 0 110 0 0 0\n"
    "intr 123456 0 0\nctxt 987654\nbtime 1763790000\nprocesses 4321\nprocs_running 1\nprocs_blocked 0\n"
    "softirq 1 2 3 4 5 6 7 8 9 10 11\n";
constexpr const char* kStatAfter =
    "cpu  104620 1210 45083 8823442 5021 0 1830 0 0 0\n"
    "cpu0 26101 300 11850 2205000 1300 0 1500 0 0 0\n"
    "cpu1 26173 310 11033 2206140 1240 0 110 0 0 0\n"
    "cpu2 26200 300 11100 2206100 1241 0 110 0 0 0\n"
    "cpu3 26146 300 11100 2206202 1240 0 110 0 0 0\n"
    "intr 123999 0 0\nctxt 987999\n";

constexpr const char* kMeminfo =
    "MemTotal:        3881060 kB\n"
    "MemFree:         2615412 kB\n"
    "MemAvailable:    3306092 kB\n"
    "Buffers:           42484 kB\n"
    "Cached:           700712 kB\n"
    "SwapCached:            0 kB\n"
    "SwapTotal:        102396 kB\n"
    "SwapFree:          92156 kB\n"
    "HugePages_Total:       0\n"
    "Hugepagesize:       2048 kB\n";

TEST(ProcStat, ParsesTotalsAndCores) {
  const auto s = parse_proc_stat(kStatBefore);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->cores.size(), 4u);
  EXPECT_EQ(s->all.idle, 8823112u + 5021u);
  EXPECT_EQ(s->all.total, 104520u + 1210 + 45033 + 8823112 + 5021 + 0 + 1830 + 0);
}

TEST(ProcStat, UsageIsTheBusyShareOfTheDelta) {
  const auto before = parse_proc_stat(kStatBefore), after = parse_proc_stat(kStatAfter);
  ASSERT_TRUE(before && after);
  // 100 user + 50 system busy, 330 idle: 150 / 480.
  EXPECT_DOUBLE_EQ(cpu_usage_pct(before->all, after->all), 100.0 * 150 / 480);
  EXPECT_DOUBLE_EQ(cpu_usage_pct(before->cores[0], after->cores[0]), 100.0);  // only busy time passed
  EXPECT_DOUBLE_EQ(cpu_usage_pct(before->cores[1], after->cores[1]), 0.0);    // only idle time passed
  EXPECT_DOUBLE_EQ(cpu_usage_pct(after->all, after->all), 0.0);               // no time passed
  EXPECT_DOUBLE_EQ(cpu_usage_pct(after->all, before->all), 0.0);              // counters went backwards
}

TEST(ProcStat, RejectsGarbage) {
  EXPECT_FALSE(parse_proc_stat(""));
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 x 4\ncpu0 1 2 3 4\n"));
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3 4\n"));  // no core lines
}

TEST(ProcMeminfo, BytesAndUsedIsTotalMinusAvailable) {
  const auto m = parse_meminfo(kMeminfo);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->total, 3881060ull * 1024);
  EXPECT_EQ(m->available, 3306092ull * 1024);
  EXPECT_EQ(m->swap_total, 102396ull * 1024);
  EXPECT_EQ(m->swap_free, 92156ull * 1024);
  EXPECT_FALSE(parse_meminfo("MemTotal: 100 kB\n"));  // no MemAvailable (kernel < 3.14)
}

TEST(ProcLoadAndUptime, ParseTheFirstFields) {
  const auto l = parse_loadavg("0.42 0.39 0.35 1/312 4242\n");
  ASSERT_TRUE(l);
  EXPECT_DOUBLE_EQ(l->one, 0.42);
  EXPECT_DOUBLE_EQ(l->five, 0.39);
  EXPECT_DOUBLE_EQ(l->fifteen, 0.35);
  EXPECT_FALSE(parse_loadavg("0.42 zero\n"));
  EXPECT_EQ(parse_uptime_s("35000.97 139810.53\n"), 35000);
  EXPECT_FALSE(parse_uptime_s("-1 0\n"));
}

}  // namespace
}  // namespace fleetmcp::device
