// The hardware fingerprint's sources (machine id, CPU serial, the primary MAC) and the simulated ones.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/base/error.h"
#include "device_client/node/hw_fingerprint.h"

namespace fleetmcp::device {
namespace {

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
