#include "common/protocol/topics.h"

#include <gtest/gtest.h>

#include <string>

namespace fleetmcp {
namespace {

constexpr std::string_view kNode = "01jd3x0000000000000000000a";
constexpr DeviceLeaf kLeaves[] = {DeviceLeaf::kAnnounce, DeviceLeaf::kStatus,  DeviceLeaf::kTelemetry,
                                  DeviceLeaf::kCmd,      DeviceLeaf::kCmdAck, DeviceLeaf::kRejected};

TEST(Topics, BuildsTheTopicsOfDocsProtocolSection3) {
  EXPECT_EQ(devices_topic(kNode, DeviceLeaf::kAnnounce), "$devices/01jd3x0000000000000000000a/announce");
  EXPECT_EQ(devices_topic(kNode, DeviceLeaf::kStatus), "$devices/01jd3x0000000000000000000a/status");
  EXPECT_EQ(devices_topic(kNode, DeviceLeaf::kTelemetry), "$devices/01jd3x0000000000000000000a/telemetry");
  EXPECT_EQ(devices_topic(kNode, DeviceLeaf::kCmd), "$devices/01jd3x0000000000000000000a/cmd");
  EXPECT_EQ(devices_topic(kNode, DeviceLeaf::kCmdAck), "$devices/01jd3x0000000000000000000a/cmd_ack");
  EXPECT_EQ(devices_topic(kNode, DeviceLeaf::kRejected), "$devices/01jd3x0000000000000000000a/rejected");
}

TEST(Topics, ParsesWhatItBuilds) {
  for (const DeviceLeaf leaf : kLeaves) {
    const std::string topic = devices_topic(kNode, leaf);
    const auto parsed = parse_devices_topic(topic);
    ASSERT_TRUE(parsed) << topic;
    EXPECT_EQ(parsed->node_id, kNode);
    EXPECT_EQ(parsed->leaf, device_leaf_name(leaf));
    EXPECT_EQ(parsed->kind, leaf) << topic;
    EXPECT_TRUE(is_devices_topic(topic));
  }
}

TEST(Topics, ParsedViewsPointIntoTheTopic) {
  const std::string topic = "$devices/abc/cmd_ack";
  const auto parsed = parse_devices_topic(topic);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->node_id.data(), topic.data() + 9);
  EXPECT_EQ(parsed->leaf.data(), topic.data() + 13);
}

TEST(Topics, OtherShapes) {
  EXPECT_FALSE(parse_devices_topic("devices/abc/cmd"));
  EXPECT_FALSE(parse_devices_topic("$devices"));
  EXPECT_FALSE(parse_devices_topic("$DEVICES/abc/cmd"));
  EXPECT_TRUE(is_devices_topic("$devices"));
  EXPECT_FALSE(is_devices_topic("$devicesx/abc"));

  auto no_leaf = parse_devices_topic("$devices/abc");
  ASSERT_TRUE(no_leaf);
  EXPECT_EQ(no_leaf->node_id, "abc");
  EXPECT_EQ(no_leaf->leaf, "");
  EXPECT_EQ(no_leaf->kind, DeviceLeaf::kOther);

  auto deeper = parse_devices_topic("$devices/abc/cmd/extra");  // a leaf is one level, exactly
  ASSERT_TRUE(deeper);
  EXPECT_EQ(deeper->leaf, "cmd/extra");
  EXPECT_EQ(deeper->kind, DeviceLeaf::kOther);

  auto wildcard = parse_devices_topic("$devices/+/status");  // the node level is not validated here
  ASSERT_TRUE(wildcard);
  EXPECT_EQ(wildcard->node_id, "+");
  EXPECT_EQ(wildcard->kind, DeviceLeaf::kStatus);

  EXPECT_EQ(parse_devices_topic("$devices//cmd")->node_id, "");
  EXPECT_EQ(parse_devices_topic("$devices/abc/Cmd")->kind, DeviceLeaf::kOther);
  EXPECT_EQ(device_leaf_name(DeviceLeaf::kOther), "");
}

TEST(Topics, EveryNodeFilters) {
  EXPECT_EQ(std::string(kEveryAnnounce), std::string(kDevicesPrefix) + "+/" + std::string(device_leaf_name(DeviceLeaf::kAnnounce)));
  EXPECT_EQ(std::string(kEveryStatus), std::string(kDevicesPrefix) + "+/" + std::string(device_leaf_name(DeviceLeaf::kStatus)));
  EXPECT_EQ(parse_devices_topic(kEveryAnnounce)->kind, DeviceLeaf::kAnnounce);
}

}  // namespace
}  // namespace fleetmcp
