// A set of ids that forgets each one a while after it was added, and the oldest ones first when
// it is full: which calls finished recently (a cmd_ack for one is late, not unknown) and which
// cmds a bridge relayed to a node here (its cmd_ack answers another broker's call). Bounded in
// size as well as time, so a high call rate cannot grow it without limit. Broker thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace fleetmcp::plugin {

class RecentIds {
 public:
  RecentIds(int64_t window_ms, size_t capacity) : window_ms_(window_ms), capacity_(capacity) {}

  bool contains(std::string_view id) const { return ids_.contains(id); }
  void add(std::string_view id, int64_t now_ms) {
    if (ids_.contains(id)) return;
    while (!order_.empty() && (order_.front().first + window_ms_ < now_ms || order_.size() >= capacity_)) {
      ids_.erase(order_.front().second);
      order_.pop_front();
    }
    order_.emplace_back(now_ms, id);
    ids_.insert(order_.back().second);
  }
  size_t size() const { return ids_.size(); }

 private:
  int64_t window_ms_;
  size_t capacity_;
  // The ids, oldest first. A deque's elements stay where they are while others are added at the
  // back or removed at the front, so ids_ can look them up by view: one copy of each id, and a
  // lookup that allocates nothing (one add and one or two lookups per call).
  std::deque<std::pair<int64_t, std::string>> order_;
  std::unordered_set<std::string_view> ids_;
};

}  // namespace fleetmcp::plugin
