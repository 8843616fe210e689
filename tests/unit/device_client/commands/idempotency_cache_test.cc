// The idempotency cache: bounded by count and age, never dropping a call still running.
#include <gtest/gtest.h>

#include "device_client/commands/idempotency_cache.h"

namespace fleetmcp::device {
namespace {

TEST(IdempotencyCache, BoundedByCountAndAgeButNeverDropsRunningCalls) {
  IdempotencyCache cache(2, 1000);
  EXPECT_EQ(cache.begin("A", 0).seen, IdempotencyCache::Seen::kNew);  // stays running
  for (const char* id : {"B", "C", "D"}) {
    cache.begin(id, 10);
    cache.complete(id, std::string("ack-") + id, 10);
  }
  EXPECT_EQ(cache.begin("B", 20).seen, IdempotencyCache::Seen::kNew);  // evicted by count (then re-begun)
  EXPECT_EQ(cache.begin("D", 20).ack, "ack-D");
  EXPECT_EQ(cache.begin("A", 20).seen, IdempotencyCache::Seen::kInFlight);
  EXPECT_EQ(cache.complete("A", "ack-A", 30), 1);  // one duplicate waited
  EXPECT_EQ(cache.begin("A", 1029).seen, IdempotencyCache::Seen::kDone);
  EXPECT_EQ(cache.begin("A", 1030).seen, IdempotencyCache::Seen::kNew);  // aged out
}

// The cache is looked up with views into the received cmd, never NUL-terminated copies: a view
// finds the entry by its characters alone, not by what follows them in the buffer.
TEST(IdempotencyCache, ViewsIntoLargerBuffersFindTheSameEntry) {
  IdempotencyCache cache;
  const std::string first = "01JD3X4M5N6P7Q8R9S0T1V2W3X\",\"ts_ms\"";
  const std::string second = "xx01JD3X4M5N6P7Q8R9S0T1V2W3Xyy";
  const std::string_view id_in_first = std::string_view(first).substr(0, 26);
  const std::string_view id_in_second = std::string_view(second).substr(2, 26);
  EXPECT_EQ(cache.begin(id_in_first, 0).seen, IdempotencyCache::Seen::kNew);
  EXPECT_EQ(cache.begin(id_in_second, 1).seen, IdempotencyCache::Seen::kInFlight);
  EXPECT_EQ(cache.complete(id_in_second, "ack", 2), 1);
  EXPECT_EQ(cache.begin(id_in_first, 3).ack, "ack");
  EXPECT_EQ(cache.begin(std::string_view(second).substr(2, 25), 4).seen, IdempotencyCache::Seen::kNew);
  EXPECT_EQ(cache.size(), 2u);
}

}  // namespace
}  // namespace fleetmcp::device
