// VerdictCache: the announce verdicts kept by the BLAKE3 of the payload.
#include <gtest/gtest.h>

#include "broker_plugin/announces/verdict_cache.h"

namespace fleetmcp::plugin {
namespace {

TEST(VerdictCache, BoundedWithTwoGenerations) {
  VerdictCache cache(4);  // two entries per generation
  auto digest = [](uint8_t n) {
    Digest32 d{};
    d[0] = n;
    return d;
  };
  for (uint8_t i = 0; i < 6; ++i) cache.put(digest(i), CachedVerdict{nullptr, std::nullopt});
  EXPECT_EQ(cache.find(digest(0)), nullptr);  // dropped with an old generation
  EXPECT_EQ(cache.find(digest(1)), nullptr);
  EXPECT_NE(cache.find(digest(2)), nullptr);  // old generation: promoted back
  EXPECT_NE(cache.find(digest(4)), nullptr);
  EXPECT_NE(cache.find(digest(2)), nullptr);
  EXPECT_LE(cache.size(), 4u);
}

}  // namespace
}  // namespace fleetmcp::plugin
