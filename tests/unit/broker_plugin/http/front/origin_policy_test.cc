// The Origin policy.
#include <gtest/gtest.h>

#include "broker_plugin/http/front/origin_policy.h"

namespace fleetmcp::http {
namespace {

TEST(OriginPolicy, LoopbackAndListedOriginsOnly) {
  const OriginPolicy p({"https://console.example"});
  EXPECT_TRUE(p.allows("http://localhost:6274"));
  EXPECT_TRUE(p.allows("http://127.0.0.1"));
  EXPECT_TRUE(p.allows("http://[::1]:8080"));
  EXPECT_TRUE(p.allows("https://console.example"));
  EXPECT_FALSE(p.allows("http://localhost.evil.example"));
  EXPECT_FALSE(p.allows("http://evil.example@localhost"));
  EXPECT_FALSE(p.allows("null"));
}

}  // namespace
}  // namespace fleetmcp::http
