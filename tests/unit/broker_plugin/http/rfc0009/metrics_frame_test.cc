// The RFC-0009 metrics frames.
#include <gtest/gtest.h>

#include "broker_plugin/http/rfc0009/metrics_frame.h"
#include "tests/support/front_fixture.h"

namespace fleetmcp::http {
namespace {

TEST(MetricsFrame, FlattensASampleAsRfc0009Says) {
  const auto sample = json::parse_strict(R"({"ts_ms":1745300000000,"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","uptime_s":5,
    "cpu":{"cores":4,"usage_pct":12.4},"mem":{"total_bytes":8589934592,"available_bytes":7355367702},
    "load":{"one":0.42,"five":0.39,"fifteen":0.35},
    "disk":[{"mount":"/boot","fs_type":"vfat","total_bytes":100,"available_bytes":0},
            {"mount":"/","fs_type":"ext4","total_bytes":1000,"available_bytes":688}]})").value();
  const auto frame = metrics_frame_json(sample);
  ASSERT_TRUE(frame);
  const auto f = json::parse_strict(*frame).value();
  EXPECT_EQ(*json::get_int64(f, "mem_bytes"), 8589934592 - 7355367702);
  EXPECT_DOUBLE_EQ(*json::get_number(f, "disk_pct"), 31.2);  // of "/", not /boot
  EXPECT_DOUBLE_EQ(*json::get_number(f, "cpu_pct"), 12.4);
  EXPECT_FALSE(testing::test_registry()->validate("mcp://schemas/system.metrics.subscribe.frame@1.0.0", f));
  EXPECT_FALSE(metrics_frame_json(json::parse_strict(R"({"ts_ms":1745300000000,"node_id":"x","uptime_s":1})").value()));
}

}  // namespace
}  // namespace fleetmcp::http
