// fleetmcp-device's command line.
#include <gtest/gtest.h>

#include "device_client/node/cli_options.h"

namespace fleetmcp::device {
namespace {

TEST(DeviceCli, ParsesFlagsAndRejectsNonsense) {
  const char* argv1[] = {"fleetmcp-device", "--simulate", "50", "--bundle-dir=/tmp/pki", "--log-level", "debug"};
  const CliOptions o = parse_cli(6, argv1).value();
  EXPECT_EQ(o.simulate, 50);
  EXPECT_EQ(o.bundle_dir, "/tmp/pki");
  EXPECT_EQ(o.log_level, EventLogLevel::kDebug);

  const char* argv2[] = {"fleetmcp-device"};
  EXPECT_EQ(parse_cli(1, argv2)->config, "/etc/fleetmcp/device.conf");

  const char* argv3[] = {"fleetmcp-device", "--simulate", "5"};
  EXPECT_EQ(parse_cli(3, argv3).error().message, "--simulate needs --bundle-dir DIR");
  const char* argv4[] = {"fleetmcp-device", "--workers", "2", "--frobnicate"};
  EXPECT_EQ(parse_cli(4, argv4).error().message, "command line argument 3: --frobnicate: unknown option");
  EXPECT_EQ(parse_cli(4, argv4).error().suggested_fix, "run fleetmcp-device --help");
  const char* argv5[] = {"fleetmcp-device", "--log-level", "loud"};
  EXPECT_EQ(parse_cli(3, argv5).error().message, "command line argument 1: --log-level: must be debug, info, warn or error");
  const char* argv6[] = {"fleetmcp-device", "-c", "a.conf", "--workers=0"};
  EXPECT_EQ(parse_cli(4, argv6).error().message, "command line argument 3: --workers: '0' is not an integer from 1 to 256");
  EXPECT_EQ(parse_cli(3, argv6)->config, "a.conf");
  const char* argv7[] = {"fleetmcp-device", "--config"};
  EXPECT_EQ(parse_cli(2, argv7).error().message, "command line argument 1: --config: needs a value");
  const char* argv8[] = {"fleetmcp-device", "-h"};
  EXPECT_TRUE(parse_cli(2, argv8)->help);
}

}  // namespace
}  // namespace fleetmcp::device
