// Two-phase calls for physical actuation (docs/protocol.md §7): the first call is refused with a commit
// token that only the same caller can spend, on the same tool, with arguments that hash the same,
// once, within the TTL (30 s). Any presentation spends the token, matching or not, so a token
// cannot be probed. A caller holds at most max_per_caller outstanding tokens: a new one replaces
// its oldest (issue 17, item 8), so the table is bounded by callers × that cap whatever the
// request rate. issue() and redeem() cost a hash lookup, not a scan. Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/base/json.h"

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
  explicit CommitTokens(int64_t ttl_ms, size_t max_per_caller = 16) : ttl_ms_(ttl_ms), max_per_caller_(max_per_caller) {}

  std::string issue(CommitBinding binding, int64_t now_ms);
  bool redeem(std::string_view token, const CommitBinding& binding, int64_t now_ms);
  // A token another front issued, presented inside a 2026-07-28 requestState whose MAC this front
  // verified (request_state.h), so that the confirmation finishes on any front behind a balancer:
  // entered as if issued here, to expire at `expires_at_ms`, unless this table has issued or
  // entered it before (until its expiry), so each front spends it at most once.
  void adopt(const std::string& token, CommitBinding binding, int64_t expires_at_ms, int64_t now_ms);
  size_t outstanding() const;

 private:
  void prune(int64_t now_ms);
  void enter(const std::string& token, CommitBinding binding, int64_t expires_at_ms);
  void forget_of_caller(const std::string& caller, const std::string& token);

  struct Entry {
    CommitBinding binding;
    int64_t expires_at_ms = 0;
  };
  int64_t ttl_ms_;
  size_t max_per_caller_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> tokens_;
  // Issue order, which is expiry order (one TTL): prune() pops from the front. An adopted token
  // may expire before the entries ahead of it and then leaves with them, at most one TTL late
  // (redeem checks its own expiry). Entries of tokens already spent stay until then and
  // are skipped; `seen_` holds the same tokens, so a spent one is not adopted again.
  std::deque<std::pair<int64_t, std::string>> by_expiry_;
  std::unordered_set<std::string> seen_;
  std::unordered_map<std::string, std::deque<std::string>> by_caller_;  // live tokens, oldest first
};

}  // namespace fleetmcp::http
