// MetricsSample as JSON: the exact shape and units of docs/protocol.md §5.4.
#include <gtest/gtest.h>

#include "common/base/json.h"
#include "device_client/host/metrics_sample.h"

namespace fleetmcp::device {
namespace {

constexpr const char* kNode = "01jd3x4m5n6p7q8r9s0t1v2w3x";

TEST(MetricsSampleJson, ExactShapeAndUnits) {
  HostSample s;
  s.ts_ms = 1763800000000;
  s.uptime_s = 35000;
  s.cpu = CpuUsage{2, 12.345, {20.04, 4.66}};
  s.mem = MemInfo{4096, 1024, 100, 40};
  s.load = LoadAvg{0.5, 0.25, 0.125};
  s.disk = {{"/", "ext4", 1000, 400}};
  EXPECT_EQ(json::to_string(metrics_sample_json(s, kNode, kPartAll)),
            R"({"ts_ms":1763800000000,"node_id":"01jd3x4m5n6p7q8r9s0t1v2w3x","uptime_s":35000,)"
            R"("cpu":{"cores":2,"usage_pct":12.3,"per_core_pct":[20.0,4.7]},)"
            R"("mem":{"total_bytes":4096,"available_bytes":1024,"used_bytes":3072,"swap_total_bytes":100,"swap_used_bytes":60},)"
            R"("load":{"one":0.5,"five":0.25,"fifteen":0.125},)"
            R"("disk":[{"mount":"/","fs_type":"ext4","total_bytes":1000,"available_bytes":400}]})");
}

}  // namespace
}  // namespace fleetmcp::device
