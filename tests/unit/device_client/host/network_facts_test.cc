// Network facts on the recorded Raspberry Pi tree (tests/fixtures/catalogue/pi): routes, resolvers,
// the status document.
#include <gtest/gtest.h>

#include "common/base/file_text.h"
#include "device_client/host/network_facts.h"
#include "tests/support/device_client/catalogue_fixtures.h"

namespace fleetmcp::device {
namespace {

using testing::expect_valid;
using testing::kPi;

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

}  // namespace
}  // namespace fleetmcp::device
