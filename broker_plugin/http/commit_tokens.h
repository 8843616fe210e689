// Two-phase calls for physical actuation (DESIGN §7): the first call is refused with a commit
// token that only the same caller can spend, on the same tool, with arguments that hash the same,
// once, within the TTL (30 s). Any presentation spends the token, matching or not, so a token
// cannot be probed. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/json.h"

namespace fleetmcp::http {

struct CommitBinding {
  std::string caller;          // tenant + "/" + token sub
  std::string tool;            // dotted
  std::string arguments_hash;  // arguments_hash() of the arguments without the token
  bool operator==(const CommitBinding&) const = default;
};

// Lowercase hex SHA-256 of the JCS form (RFC 8785), so key order and spacing do not matter.
std::string arguments_hash(const json::Value& arguments);

class CommitTokens {
 public:
  explicit CommitTokens(int64_t ttl_ms) : ttl_ms_(ttl_ms) {}

  std::string issue(CommitBinding binding, int64_t now_ms);
  bool redeem(std::string_view token, const CommitBinding& binding, int64_t now_ms);
  size_t outstanding() const;

 private:
  void prune(int64_t now_ms);

  struct Entry {
    CommitBinding binding;
    int64_t expires_at_ms = 0;
  };
  int64_t ttl_ms_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> tokens_;
};

}  // namespace fleetmcp::http
