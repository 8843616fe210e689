// System facts and health on recorded data (tests/fixtures/catalogue/): a Raspberry Pi Zero 2 W's
// /proc, /sys and /etc tree: basic info, the temperature fallback chain, throttling bits, network
// and disk I/O rates from two readings. (The other readers' tests sit next to their source files:
// network_facts, process_table, iso_time, handlers/service_handler, handlers/log_handler.)
#include <gtest/gtest.h>

#include <filesystem>

#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/base/json.h"
#include "common/registry/schema_registry.h"
#include "device_client/host/io_rates.h"
#include "device_client/host/system_facts.h"
#include "tests/support/device_client/catalogue_fixtures.h"

namespace fleetmcp::device {
namespace {

using testing::kFixtures;
using testing::kPi;

CommandRunner no_helpers() {
  return [](const std::vector<std::string>&) { return std::optional<std::string>(); };
}

TEST(CatalogueSystemInfo, BasicInfoFromARecordedPi) {
  const BasicInfo b = read_basic_info(kPi);
  EXPECT_EQ(b.hostname, "pizero2");
  EXPECT_EQ(b.model, "Raspberry Pi Zero 2 W Rev 1.0");  // the device-tree string's NUL is dropped
  EXPECT_EQ(b.os_name, "Debian GNU/Linux");
  EXPECT_EQ(b.os_version, "12");
  EXPECT_EQ(b.kernel_version, "6.6.51+rpt-rpi-v8");
  EXPECT_EQ(b.memory_total_bytes, 434088u * 1024);
  EXPECT_EQ(b.uptime_seconds, 12345);
  EXPECT_EQ(parse_os_release("NAME=Alpine\nVERSION=3.19\n").version, "3.19");
  EXPECT_EQ(parse_os_release("").name, "Linux");
}

TEST(CatalogueHealth, TemperatureFallbackChainOfDoc05Section4_3) {
  auto t = read_cpu_temperature(kPi, no_helpers());
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->celsius, 47.236);
  EXPECT_EQ(t->source, "thermal_zone");

  // No thermal zone: vcgencmd is asked next, with exactly the Doc's command line.
  std::vector<std::string> asked;
  t = read_cpu_temperature(kFixtures + "/hwmon_only", [&](const std::vector<std::string>& argv) {
    asked = argv;
    return std::optional<std::string>("temp=52.1'C\n");
  });
  ASSERT_TRUE(t);
  EXPECT_EQ(asked, (std::vector<std::string>{"/usr/bin/vcgencmd", "measure_temp"}));
  EXPECT_DOUBLE_EQ(t->celsius, 52.1);
  EXPECT_EQ(t->source, "vcgencmd");

  // Neither: the first hwmon temp*_input.
  t = read_cpu_temperature(kFixtures + "/hwmon_only", no_helpers());
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->celsius, 51.5);
  EXPECT_EQ(t->source, "hwmon");

  EXPECT_FALSE(read_cpu_temperature(kFixtures + "/nothing_here", no_helpers()));
  EXPECT_EQ(parse_vcgencmd_temp("temp=47.2'C"), 47.2);
  EXPECT_EQ(parse_vcgencmd_temp("error=1 error_msg=\"Command not registered\""), std::nullopt);
}

// Doc 05 addendum §4.1, §4.2: rates from two readings of /proc/net/dev and /proc/diskstats (recorded
// from a Pi, one second apart), per interface and per whole disk; loop and RAM disks, partitions
// and interfaces missing from either reading are left out.
TEST(CatalogueHealth, NetworkAndDiskIoRatesFromTwoReadings) {
  const IoReading before = read_io(kFixtures + "/io_before");
  const IoReading after = read_io(kFixtures + "/io_after");
  ASSERT_EQ(before.interfaces.size(), 3u);
  EXPECT_EQ(before.interfaces.at("eth0").rx_bytes, 98765432u);
  EXPECT_EQ(before.interfaces.at("eth0").tx_packets, 9000u);
  EXPECT_EQ(std::vector<std::string>({"mmcblk0"}), [&] {
    std::vector<std::string> names;
    for (const auto& [name, counters] : before.disks) names.push_back(name);
    return names;
  }());
  EXPECT_EQ(after.disks.at("mmcblk0").in_flight, 2u);

  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  const json::Value net = network_rates_json(before, after, std::chrono::milliseconds(1000), a);
  EXPECT_EQ(net["interval_ms"].GetInt64(), 1000);
  const json::Value& eth0 = net["interfaces"]["eth0"];
  EXPECT_DOUBLE_EQ(eth0["bytes_recv_per_sec"].GetDouble(), 234568.0);
  EXPECT_DOUBLE_EQ(eth0["bytes_sent_per_sec"].GetDouble(), 15421.0);
  EXPECT_DOUBLE_EQ(eth0["packets_recv_per_sec"].GetDouble(), 450.0);
  EXPECT_DOUBLE_EQ(eth0["packets_sent_per_sec"].GetDouble(), 125.0);
  EXPECT_DOUBLE_EQ(eth0["error_rate_percent"].GetDouble(), 0.174);  // 1 error among 575 packets
  EXPECT_DOUBLE_EQ(eth0["drop_rate_percent"].GetDouble(), 0.0);
  EXPECT_DOUBLE_EQ(eth0["utilization_percent"].GetDouble(), 0.188);  // 1.88 Mbit/s of 1000
  EXPECT_DOUBLE_EQ(net["interfaces"]["lo"]["bytes_recv_per_sec"].GetDouble(), 2048.0);
  EXPECT_FALSE(net["interfaces"]["lo"].HasMember("utilization_percent"));     // no link speed
  EXPECT_FALSE(net["interfaces"]["wlan0"].HasMember("utilization_percent"));  // speed -1
  EXPECT_FALSE(net["interfaces"].HasMember("usb0"));  // only in the second reading
  EXPECT_DOUBLE_EQ(net["total_bandwidth_mbps"]["up"].GetDouble(), 0.123);    // loopback left out
  EXPECT_DOUBLE_EQ(net["total_bandwidth_mbps"]["down"].GetDouble(), 1.877);

  const json::Value disk = disk_io_rates_json(before, after, std::chrono::milliseconds(1000), a);
  ASSERT_EQ(disk["devices"].MemberCount(), 1u);
  const json::Value& sd = disk["devices"]["mmcblk0"];
  EXPECT_DOUBLE_EQ(sd["read_bytes_per_sec"].GetDouble(), 512000.0);  // 1000 sectors of 512 bytes
  EXPECT_DOUBLE_EQ(sd["write_bytes_per_sec"].GetDouble(), 128000.0);
  EXPECT_DOUBLE_EQ(sd["read_iops"].GetDouble(), 45.0);
  EXPECT_DOUBLE_EQ(sd["write_iops"].GetDouble(), 12.0);
  EXPECT_DOUBLE_EQ(sd["busy_percent"].GetDouble(), 15.5);
  EXPECT_EQ(sd["queue_depth"].GetUint64(), 2u);
  EXPECT_DOUBLE_EQ(disk["total"]["read_mb_per_sec"].GetDouble(), 0.512);
  EXPECT_DOUBLE_EQ(disk["total"]["write_mb_per_sec"].GetDouble(), 0.128);

  // Over two seconds the same counts are half the rate; a counter that went back (a reset) is 0.
  EXPECT_DOUBLE_EQ(disk_io_rates_json(before, after, std::chrono::milliseconds(2000), a)["devices"]["mmcblk0"]["write_iops"].GetDouble(), 6.0);
  EXPECT_DOUBLE_EQ(network_rates_json(after, before, std::chrono::milliseconds(1000), a)["interfaces"]["eth0"]["bytes_recv_per_sec"].GetDouble(), 0.0);
}

TEST(CatalogueHealth, DeviceNamesOutsideTheGrammarAndOddLinesAreSkipped) {
  const auto interfaces = parse_proc_net_dev(
      "Inter-|   Receive\n face |bytes\n  eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
      "  bad name: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n  short: 1 2 3\n");
  ASSERT_EQ(interfaces.size(), 1u);
  EXPECT_EQ(interfaces.at("eth0").tx_bytes, 9u);
  EXPECT_EQ(interfaces.at("eth0").tx_dropped, 12u);
  const auto disks = parse_proc_diskstats(" 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n 8 1 sd/a 1 2 3 4 5 6 7 8 9 10 11\n 8 2 sdb 1 2\n");
  ASSERT_EQ(disks.size(), 1u);
  EXPECT_EQ(disks.at("sda").sectors_written, 7u);
  EXPECT_TRUE(reported_block_device("sda", {}));
  EXPECT_FALSE(reported_block_device("loop3", {}));
  EXPECT_FALSE(reported_block_device("sda1", {"sda"}));
}

TEST(CatalogueHealth, ThrottlingWordBits) {
  // 0x50005: under-voltage now (bit 0) and throttled now (bit 2); bits 16 and 18 are history.
  auto f = read_throttling(kPi, no_helpers());
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->under_voltage);
  EXPECT_FALSE(f->freq_capped);
  EXPECT_TRUE(f->throttled);
  f = parse_throttled("throttled=0x2\n");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->freq_capped);
  EXPECT_FALSE(f->under_voltage);
  EXPECT_FALSE(parse_throttled("throttled=zz"));
  EXPECT_FALSE(read_throttling(kFixtures + "/hwmon_only", no_helpers()));  // not a Pi: no flags at all
}

}  // namespace
}  // namespace fleetmcp::device
