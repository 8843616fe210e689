// The metrics resource's URI (metrics_uri.h): its defaults, its query, and every malformed form
// refused with a fix rather than read as the default.
#include "broker_plugin/http/streams/metrics_uri.h"

#include <gtest/gtest.h>

namespace fleetmcp::http {
namespace {

constexpr std::string_view kBase = "fleetmcp://nodes/01hzx9k3m4p7q8r9s0t1v2w3xy/metrics";

std::string with(std::string_view query) { return std::string(kBase) + std::string(query); }

TEST(MetricsUri, WithoutAQueryItIsEverySectionEveryFiveSeconds) {
  const auto uri = parse_metrics_uri(kBase);
  ASSERT_TRUE(uri) << uri.error().message;
  EXPECT_EQ(uri->node_id, "01hzx9k3m4p7q8r9s0t1v2w3xy");
  EXPECT_EQ(uri->interval_ms, 5000);
  EXPECT_EQ(uri->include, kAllMetricsSections);
}

TEST(MetricsUri, ReadsIntervalAndSectionsInEitherOrder) {
  const auto a = parse_metrics_uri(with("?interval_ms=1000&include=cpu,mem"));
  const auto b = parse_metrics_uri(with("?include=cpu,mem&interval_ms=1000"));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->interval_ms, 1000);
  EXPECT_EQ(a->include, b->include);
  EXPECT_EQ(metrics_uri(a->node_id, a->interval_ms, a->include), with("?interval_ms=1000&include=cpu,mem"));
  EXPECT_EQ(metrics_uri(a->node_id, 60000, kAllMetricsSections), with("?interval_ms=60000"));
  EXPECT_EQ(parse_metrics_uri(with("?interval_ms=60000"))->interval_ms, 60000);
}

TEST(MetricsUri, RefusesWhatIsNotOneOfItsForms) {
  for (const std::string_view query : {"?interval_ms=999", "?interval_ms=60001", "?interval_ms=0", "?interval_ms=abc",
                                       "?interval_ms=5000x", "?interval_ms=", "?interval_ms=-5", "?interval_ms=1000.5",
                                       "?interval_ms=1000&interval_ms=2000", "?every=1000", "?include=cpu,gpu",
                                       "?include=", "?"}) {
    const auto uri = parse_metrics_uri(with(query));
    ASSERT_FALSE(uri) << query;
    EXPECT_EQ(uri.error().code, ErrorCode::kInvalidArguments) << query;
    EXPECT_NE(uri.error().suggested_fix.find("interval_ms=<1000..60000>"), std::string::npos) << query;
  }
  EXPECT_NE(parse_metrics_uri(with("?interval_ms=999")).error().message.find("1000 to 60000"), std::string::npos);
  EXPECT_FALSE(parse_metrics_uri("fleetmcp://nodes/a/b/metrics"));
}

TEST(MetricsUri, KnowsItsShapeApartFromTheOtherNodeResources) {
  EXPECT_TRUE(is_metrics_uri(kBase));
  EXPECT_TRUE(is_metrics_uri(with("?interval_ms=nope")));  // its shape: parse_metrics_uri says what is wrong
  EXPECT_FALSE(is_metrics_uri("fleetmcp://nodes/01hzx9k3m4p7q8r9s0t1v2w3xy/manifest"));
  EXPECT_FALSE(is_metrics_uri("fleetmcp://nodes//metrics"));
}

TEST(MetricsUri, IncludeArgumentRoundTrips) {
  json::Document d;
  const unsigned cpu_disk = parse_metrics_uri(with("?include=disk,cpu"))->include;
  const json::Value arg = metrics_include_argument(cpu_disk, d.GetAllocator());
  ASSERT_TRUE(arg.IsArray());
  EXPECT_EQ(json::to_string(arg), R"(["cpu","disk"])");
  EXPECT_EQ(metrics_sections(&arg), cpu_disk);
  EXPECT_TRUE(metrics_include_argument(kAllMetricsSections, d.GetAllocator()).IsNull());
}

}  // namespace
}  // namespace fleetmcp::http
