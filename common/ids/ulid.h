// ULIDs: lowercase 26-char node_ids, uppercase msg_ids / correlation ids. Monotonic within a
// millisecond per generator (the random part is incremented), thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fleetmcp {

class UlidGenerator {
 public:
  std::string next_upper();
  std::string next_lower();
};

std::string new_node_id();  // lowercase
std::string new_msg_id();   // uppercase

// The grammar of the two ids, as the predicates check it and as JSON Schemas embed it.
inline constexpr std::string_view kNodeIdPattern = "^[0-9a-hjkmnp-tv-z]{26}$";  // lowercase Crockford
inline constexpr std::string_view kMsgIdPattern = "^[0-9A-HJKMNP-TV-Z]{26}$";   // uppercase Crockford
bool is_node_id(std::string_view text);  // kNodeIdPattern; allocation-free, it runs on every ACL check
bool is_msg_id(std::string_view text);   // kMsgIdPattern
int64_t ulid_time_ms(std::string_view ulid);  // -1 when not a ULID

int64_t now_ms();  // wall clock, milliseconds since the epoch

}  // namespace fleetmcp
