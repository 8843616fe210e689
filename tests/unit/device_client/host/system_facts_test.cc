// The Doc 05 catalogue's parsers on recorded data (tests/fixtures/catalogue/): a Raspberry Pi Zero 2
// W's /proc, /sys and /etc tree, `systemctl show --timestamp=unix` output (the D-Bus properties the
// sd-bus backend renders to the same form) and `journalctl -o export` text. Every document a
// reader builds is checked against the kind's output schema, as the device's dispatcher does.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/base/json.h"
#include "common/registry/schema_registry.h"
#include "device_client/host/iso_time.h"
#include "device_client/backends/log_source.h"
#include "device_client/host/network_facts.h"
#include "device_client/host/process_table.h"
#include "device_client/backends/service_control.h"
#include "device_client/handlers/service_handler.h"
#include "device_client/host/io_rates.h"
#include "device_client/host/system_facts.h"

namespace fleetmcp::device {
namespace {

const std::string kFixtures = FLEETMCP_SOURCE_DIR "/tests/fixtures/catalogue";
const std::string kPi = kFixtures + "/pi";

const SchemaRegistry& schemas() {
  static const auto reg = SchemaRegistry::load(FLEETMCP_SOURCE_DIR "/schemas");
  return *reg;
}

void expect_valid(std::string_view schema, const json::Value& doc) {
  const auto bad = schemas().validate(std::string("mcp://schemas/") + std::string(schema), doc);
  EXPECT_FALSE(bad) << json::to_string(doc) << "\n" << bad->path << ": " << bad->message;
}

CommandRunner no_helpers() {
  return [](const std::vector<std::string>&) { return std::optional<std::string>(); };
}

TEST(CatalogueTime, IsoRoundTripAndRejects) {
  EXPECT_EQ(iso_utc_from_ms(1763800000000), "2025-11-22T08:26:40Z");
  EXPECT_EQ(iso_utc_from_ms(1763800000123), "2025-11-22T08:26:40.123Z");
  EXPECT_EQ(ms_from_iso_utc("2025-11-22T08:26:40Z"), 1763800000000);
  EXPECT_EQ(ms_from_iso_utc("2025-11-22T08:26:40.5Z"), 1763800000500);
  EXPECT_EQ(ms_from_iso_utc("2025-11-22T10:26:40+02:00"), 1763800000000);
  EXPECT_EQ(ms_from_iso_utc("2025-11-22 08:26:40"), std::nullopt);
  EXPECT_EQ(ms_from_iso_utc("2025-13-22T08:26:40Z"), std::nullopt);
  EXPECT_EQ(ms_from_iso_utc("2025-11-22T08:26:40Zjunk"), std::nullopt);
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

TEST(CatalogueNetwork, RoutesAndResolvers) {
  const auto v4 = parse_default_route_v4(read_file(kPi + "/proc/net/route").value());
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->gateway, "192.168.1.1");  // wlan0's metric 600 beats eth0's 700
  EXPECT_EQ(v4->interface, "wlan0");
  const auto v6 = parse_default_route_v6(read_file(kPi + "/proc/net/ipv6_route").value());
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->gateway, "fe80::1");
  EXPECT_EQ(v6->interface, "wlan0");
  EXPECT_EQ(parse_resolv_conf(read_file(kPi + "/etc/resolv.conf").value()), (std::vector<std::string>{"192.168.1.1", "fd00::1"}));
  EXPECT_EQ(interface_state("dormant"), "down");
}

TEST(CatalogueNetwork, StatusDocumentFromTheRecordedTree) {
  const json::Document d = read_network_status(kPi, false);
  expect_valid("network.status.get.output@1.0.0", d);
  const auto& ifs = d["interfaces"];
  ASSERT_EQ(ifs.Size(), 4u);
  EXPECT_STREQ(ifs[0]["name"].GetString(), "eth0");
  EXPECT_STREQ(ifs[1]["state"].GetString(), "unknown");                      // lo
  EXPECT_STREQ(ifs[2]["mac_address"].GetString(), "00:00:00:00:00:00");     // tun0 has no MAC
  EXPECT_EQ(ifs[3]["statistics"]["bytes_recv"].GetUint64(), 987654321u);     // wlan0
  EXPECT_STREQ(d["default_gateway"]["ipv4"].GetString(), "192.168.1.1");
  EXPECT_EQ(d["dns_servers"].Size(), 2u);
  expect_valid("network.status.get.output@1.0.0", read_network_status("", true));  // this host, live
}

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
    json::Document d = process_list_json(all, process_query_from(json::parse_strict(args).value()));
    expect_valid("process.table.snapshot.output@1.0.0", d);
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
  expect_valid("process.table.snapshot.output@1.0.0",
               process_list_json(read_all_processes(live), process_query_from(json::parse_strict("{}").value())));
  expect_valid("process.table.get.output@1.0.0", process_detail_json(*read_process(live, getpid(), true)));
}

TEST(CatalogueServices, SystemctlShowPropertiesToStatus) {
  const uint64_t now_us = 1763800600ull * 1'000'000;  // ten minutes after ActiveEnterTimestamp
  ServiceStatus s = service_status_from(parse_systemctl_show(read_file(kFixtures + "/systemctl_show_nginx.txt").value()), now_us);
  EXPECT_EQ(s.name, "nginx.service");
  EXPECT_EQ(s.status, "active");
  EXPECT_EQ(s.sub_status, "running");
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.pid, 812);
  EXPECT_EQ(s.memory_bytes, 9568256u);
  EXPECT_EQ(s.uptime_seconds, 600);
  EXPECT_EQ(s.restart_count, 2);
  EXPECT_TRUE(s.can_reload);
  expect_valid("service.unit.get.output@1.0.0", service_status_json(s));

  s = service_status_from(parse_systemctl_show(read_file(kFixtures + "/systemctl_show_stopped.txt").value()), now_us);
  EXPECT_EQ(s.status, "inactive");
  EXPECT_FALSE(s.enabled);
  EXPECT_FALSE(s.memory_bytes);   // "[not set]"
  EXPECT_FALSE(s.uptime_seconds);
  const json::Document d = service_status_json(s);
  expect_valid("service.unit.get.output@1.0.0", d);
  EXPECT_FALSE(d.HasMember("pid"));

  try {
    service_status_from(parse_systemctl_show(read_file(kFixtures + "/systemctl_show_missing.txt").value()), now_us);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadRequest);
    EXPECT_EQ(e.envelope().message, "not_found: systemd has no unit nosuch.service");
  }
}

// Doc 05 addendum §6.1: the services that need a unit, from the properties systemctl show (and the
// sd-bus backend) give: RequiredBy, BoundBy and WantedBy, services only, each once, sorted.
TEST(CatalogueServices, DependentServicesFromUnitProperties) {
  const UnitProperties p = parse_systemctl_show(read_file(kFixtures + "/systemctl_show_dependents.txt").value());
  EXPECT_EQ(dependent_service_names(p),
            (std::vector<std::string>{"NetworkManager.service", "avahi-daemon.service", "bluetooth.service",
                                      "systemd-logind.service"}));
  EXPECT_TRUE(dependent_service_names(parse_systemctl_show(read_file(kFixtures + "/systemctl_show_nginx.txt").value()))
                  .empty());
  for (const char* state : {"active", "reloading", "activating"}) EXPECT_TRUE(is_running_state(state)) << state;
  for (const char* state : {"inactive", "failed", "deactivating", ""}) EXPECT_FALSE(is_running_state(state)) << state;
}

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
}

}  // namespace
}  // namespace fleetmcp::device
