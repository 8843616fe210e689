// PersistentMap against std::map: every version keeps its own contents and order.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "broker_plugin/http/fleet/persistent_map.h"

namespace fleetmcp::http {
namespace {

TEST(PersistentMapTest, EveryVersionKeepsItsOwnContentsAndOrder) {
  std::mt19937 random(7);
  std::vector<std::pair<PersistentMap<std::string, int>, std::map<std::string, int>>> versions(1);
  for (int step = 0; step < 2000; ++step) {
    auto [map, model] = versions.back();
    // "k" + … here trips GCC 12's -Wrestrict false positive; append instead.
    const std::string key = std::string("k").append(std::to_string(random() % 300));
    if (random() % 3 == 0) {
      map = map.erase(key);
      model.erase(key);
    } else {
      map = map.insert_or_assign(key, step);
      model.insert_or_assign(key, step);
    }
    versions.emplace_back(map, model);
  }
  for (const auto& [map, model] : versions) {  // the old ones too: nothing was changed in place
    ASSERT_EQ(map.size(), model.size());
    auto it = map.begin();
    for (const auto& [key, value] : model) {
      ASSERT_EQ(it.key(), key);
      ASSERT_EQ(*it, value);
      ++it;
    }
    EXPECT_EQ(it, map.end());
  }
  const auto& [map, model] = versions.back();
  for (const std::string probe : {"k", "k1", "k150", "k2999", "k9", "l"}) {
    const auto upper = model.upper_bound(probe);
    const auto it = map.upper_bound(probe);
    EXPECT_EQ(it == map.end(), upper == model.end()) << probe;
    if (upper != model.end()) {
      EXPECT_EQ(it.key(), upper->first) << probe;
    }
    const auto lower = model.lower_bound(probe);
    EXPECT_EQ(map.lower_bound(probe) == map.end(), lower == model.end()) << probe;
    EXPECT_EQ(map.find(probe) != nullptr, model.count(probe) != 0) << probe;
  }
}

}  // namespace
}  // namespace fleetmcp::http
