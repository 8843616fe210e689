// /proc parsing for system.metrics (docs/protocol.md D10) on recorded text from a Raspberry Pi 4 (Raspberry
// Pi OS bookworm) and from a Debian server: units, the used = total - available rule, CPU % from
// the delta of two readings, and which mounts count as physical disks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/base/error.h"
#include "device_client/node/hw_fingerprint.h"
#include "device_client/host/mount_table.h"
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

constexpr const char* kMounts =
    "/dev/mmcblk0p2 / ext4 rw,noatime 0 0\n"
    "devtmpfs /dev devtmpfs rw,relatime,size=1677420k 0 0\n"
    "proc /proc proc rw,relatime 0 0\n"
    "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
    "securityfs /sys/kernel/security securityfs rw 0 0\n"
    "tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0\n"
    "devpts /dev/pts devpts rw 0 0\n"
    "tmpfs /run tmpfs rw,nosuid,nodev,size=776212k 0 0\n"
    "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n"
    "/dev/mmcblk0p1 /boot/firmware vfat rw,relatime 0 0\n"
    "/dev/sda1 /media/usb\\040stick exfat rw 0 0\n"
    "/dev/sdb1 /run/media/pi/BACKUP ext4 rw 0 0\n"
    "/dev/loop0 /snap/core/1 squashfs ro 0 0\n"
    "nas:/export /mnt/nas nfs4 rw 0 0\n"
    "sshfs#me@host: /mnt/remote fuse.sshfs rw 0 0\n"
    "overlay / overlay rw,lowerdir=/a 0 0\n"
    "/dev/sr0 /media/cdrom iso9660 ro 0 0\n";

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

TEST(MountTable, KeepsOnlyPhysicalFilesystems) {
  std::vector<std::string> kept;
  for (const auto& m : parse_mounts(kMounts)) {
    if (is_physical_filesystem(m)) kept.push_back(m.mount + " " + m.fs_type);
  }
  EXPECT_EQ(kept, (std::vector<std::string>{"/ ext4", "/boot/firmware vfat", "/media/usb stick exfat",
                                             "/run/media/pi/BACKUP ext4", "/ overlay"}));
}

TEST(MountTable, DecodesOctalEscapes) {
  const auto mounts = parse_mounts("/dev/sda1 /a\\011b\\134c ext4 rw 0 0\nbroken-line\n");
  ASSERT_EQ(mounts.size(), 1u);
  EXPECT_EQ(mounts[0].mount, "/a\tb\\c");
}

TEST(CpuSerial, FromPiCpuinfo) {
  const char* cpuinfo =
      "processor\t: 3\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n\n"
      "Hardware\t: BCM2835\nRevision\t: c03114\nSerial\t\t: 10000000a1b2c3d4\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
  EXPECT_EQ(cpu_serial_from_cpuinfo(cpuinfo), "10000000a1b2c3d4");
  EXPECT_EQ(cpu_serial_from_cpuinfo("processor : 0\nSerial : 0000000000000000\n"), "");  // QEMU, VMs
  EXPECT_EQ(cpu_serial_from_cpuinfo("processor : 0\nmodel name : Intel\n"), "");
}

class FingerprintFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("fleetmcp-fp-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    const auto path = root_ / rel;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  std::filesystem::path root_;
};

TEST_F(FingerprintFixture, SourcesInFixedOrderPreferringRealDevices) {
  write("etc/machine-id", "3d1219c7c4c5404aaa1f6d2a48adfda4\n");
  write("sys/firmware/devicetree/base/serial-number", std::string("10000000a1b2c3d4\0", 17));
  write("sys/class/net/lo/address", "00:00:00:00:00:00\n");
  write("sys/class/net/br0/address", "02:42:ac:11:00:01\n");  // virtual: no device/
  write("sys/class/net/wlan0/address", "dc:a6:32:00:00:02\n");
  write("sys/class/net/wlan0/device/uevent", "DRIVER=brcmfmac\n");
  write("sys/class/net/eth0/address", "dc:a6:32:00:00:01\n");
  write("sys/class/net/eth0/device/uevent", "DRIVER=bcmgenet\n");
  const auto sources = read_hw_fingerprint_sources(root_.string());
  EXPECT_EQ(sources, (FingerprintSources{{"machine_id", "3d1219c7c4c5404aaa1f6d2a48adfda4"},
                                         {"cpu_serial", "10000000a1b2c3d4"},
                                         {"mac_primary", "dc:a6:32:00:00:01"}}));
}

TEST_F(FingerprintFixture, WhicheverExist) {
  write("sys/class/net/veth9/address", "02:42:ac:11:00:09\n");
  EXPECT_EQ(read_hw_fingerprint_sources(root_.string()), (FingerprintSources{{"mac_primary", "02:42:ac:11:00:09"}}));
}

TEST_F(FingerprintFixture, NoSourceIsAnError) {
  std::filesystem::create_directories(root_);
  EXPECT_THROW(read_hw_fingerprint_sources(root_.string()), Error);
}

TEST(SimulatedFingerprint, DistinctPerNodeAndStable) {
  const auto a = simulated_fingerprint_sources("01jd3x4m5n6p7q8r9s0t1v2w3x");
  const auto b = simulated_fingerprint_sources("01jd3x4m5n6p7q8r9s0t1v2w3y");
  EXPECT_NE(a, b);
  EXPECT_EQ(a, simulated_fingerprint_sources("01jd3x4m5n6p7q8r9s0t1v2w3x"));
  EXPECT_EQ(a[0].first, "machine_id");
  EXPECT_EQ(a[0].second.size(), 32u);
}

}  // namespace
}  // namespace fleetmcp::device
