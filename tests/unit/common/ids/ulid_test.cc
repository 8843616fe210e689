#include "common/ids/ulid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>
#include <vector>

namespace fleetmcp {
namespace {

TEST(Ulid, NodeIdsAreLowercaseMsgIdsUppercase) {
  const std::string node = new_node_id(), msg = new_msg_id();
  EXPECT_EQ(node.size(), 26u);
  EXPECT_EQ(msg.size(), 26u);
  EXPECT_TRUE(is_node_id(node)) << node;
  EXPECT_TRUE(is_msg_id(msg)) << msg;
  EXPECT_TRUE(std::any_of(node.begin() + 10, node.end(), [](char c) { return c >= 'a'; })) << node;
  EXPECT_FALSE(is_msg_id(node) && is_node_id(msg));
}

TEST(Ulid, TimestampIsNow) {
  const int64_t before = now_ms();
  const std::string id = new_msg_id();
  const int64_t after = now_ms();
  EXPECT_GE(ulid_time_ms(id), before);
  EXPECT_LE(ulid_time_ms(id), after);
}

TEST(Ulid, DecodesTheSpecExampleTime) {
  EXPECT_EQ(ulid_time_ms("01ARYZ6S41TSV4RRFFQ69G5FAV"), 1469918176385);  // github.com/ulid/spec
  EXPECT_EQ(ulid_time_ms("01aryz6s41tsv4rrffq69g5fav"), 1469918176385);
  EXPECT_EQ(ulid_time_ms("7ZZZZZZZZZ0000000000000000"), (int64_t{1} << 48) - 1);
  EXPECT_EQ(ulid_time_ms("8000000000000000000000000"), -1) << "25 chars";
  EXPECT_EQ(ulid_time_ms("80000000000000000000000000"), -1) << "beyond 48 bits";
  EXPECT_EQ(ulid_time_ms("01ARYZ6S41tsv4rrffq69g5fav"), -1) << "mixed case";
}

TEST(Ulid, MonotonicWithinAMillisecond) {
  UlidGenerator gen;
  std::string last = gen.next_upper();
  for (int i = 0; i < 20000; ++i) {
    const std::string next = gen.next_upper();
    ASSERT_LT(last, next) << "after " << i << " ids";
    last = next;
  }
  std::string last_lower = gen.next_lower();
  for (int i = 0; i < 1000; ++i) {
    const std::string next = gen.next_lower();
    ASSERT_LT(last_lower, next);
    last_lower = next;
  }
}

// Each millisecond's first id draws fresh random bits (from a pool filled 32 ids at a time):
// over more ids than one pool holds, no two milliseconds share their random part.
TEST(Ulid, EachMillisecondDrawsFreshRandomBits) {
  std::set<std::string> randoms;
  int64_t last_ms = -1;
  int drawn = 0;
  while (drawn < 100) {
    const std::string id = new_msg_id();
    if (ulid_time_ms(id) == last_ms) continue;
    last_ms = ulid_time_ms(id);
    ++drawn;
    const std::string random = id.substr(10);
    EXPECT_TRUE(randoms.insert(random).second) << "repeated random part " << random;
    EXPECT_NE(random, std::string(16, '0')) << "a wiped pool entry";
    std::this_thread::sleep_for(std::chrono::microseconds(300));
  }
}

TEST(Ulid, UniqueAndOrderedPerThreadAcrossThreads) {
  constexpr int kThreads = 4, kEach = 5000;
  std::vector<std::vector<std::string>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&ids, t] {
      UlidGenerator gen;
      for (int i = 0; i < kEach; ++i) ids[t].push_back(gen.next_upper());
    });
  }
  for (auto& th : threads) th.join();
  std::set<std::string> all;
  for (const auto& v : ids) {
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    all.insert(v.begin(), v.end());
  }
  EXPECT_EQ(all.size(), size_t{kThreads * kEach});
}

TEST(Ulid, Validation) {
  EXPECT_TRUE(is_node_id("01jd3x0000000000000000000a"));
  EXPECT_FALSE(is_node_id("01JD3X0000000000000000000A"));
  EXPECT_FALSE(is_node_id("01jd3x0000000000000000000"));
  EXPECT_FALSE(is_node_id("01jd3x0000000000000000000aa"));
  for (char excluded : {'i', 'l', 'o', 'u', '-', ' '}) {
    std::string id = "01jd3x0000000000000000000a";
    id[5] = excluded;
    EXPECT_FALSE(is_node_id(id)) << excluded;
  }
  EXPECT_TRUE(is_msg_id("01JD3X0000000000000000000A"));
  EXPECT_FALSE(is_msg_id("01jd3x0000000000000000000a"));
  EXPECT_FALSE(is_msg_id(""));
}

}  // namespace
}  // namespace fleetmcp
