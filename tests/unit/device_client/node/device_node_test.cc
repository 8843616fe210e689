// DeviceNode's topics: the six $devices/<node_id>/<leaf> topics of docs/protocol.md §3 it publishes
// and subscribes to, built once from its node id. (A running DeviceNode needs a broker:
// device_roundtrip.sh and the other integration tests run it.)
#include <gtest/gtest.h>

#include "device_client/node/device_node.h"

namespace fleetmcp::device {
namespace {

TEST(NodeTopics, AreTheSixDeviceTopicsOfTheNode) {
  const NodeTopics t("01jd3x4m5n6p7q8r9s0t1v2w3x");
  EXPECT_EQ(t.announce, "$devices/01jd3x4m5n6p7q8r9s0t1v2w3x/announce");
  EXPECT_EQ(t.telemetry, "$devices/01jd3x4m5n6p7q8r9s0t1v2w3x/telemetry");
  EXPECT_EQ(t.cmd, "$devices/01jd3x4m5n6p7q8r9s0t1v2w3x/cmd");
  EXPECT_EQ(t.cmd_ack, "$devices/01jd3x4m5n6p7q8r9s0t1v2w3x/cmd_ack");
  EXPECT_EQ(t.rejected, "$devices/01jd3x4m5n6p7q8r9s0t1v2w3x/rejected");
  EXPECT_EQ(t.status, "$devices/01jd3x4m5n6p7q8r9s0t1v2w3x/status");
}

}  // namespace
}  // namespace fleetmcp::device
