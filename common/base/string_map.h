// A hash map keyed by std::string that is looked up by std::string_view as it is (C++20
// heterogeneous lookup): a key read from a message, a header or a topic is found without first
// being copied into a std::string.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fleetmcp {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
};

template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;

}  // namespace fleetmcp
