#include "broker_plugin/http/calls/commit_tokens.h"

#include <sodium.h>

#include <algorithm>
#include <array>

#include "common/base/bytes.h"
#include "common/crypto/digest.h"
#include "common/crypto/jcs.h"

namespace fleetmcp::http {

std::string arguments_hash(const json::Value& arguments) { return sha256_hex(jcs::canonicalize(arguments)); }

std::string CommitTokens::issue(CommitBinding binding, int64_t now_ms) {
  std::array<uint8_t, 24> random{};
  randombytes_buf(random.data(), random.size());
  std::string token = "ct_" + base64url_encode(random);
  std::lock_guard<std::mutex> lock(mutex_);
  prune(now_ms);
  enter(token, std::move(binding), now_ms + ttl_ms_);
  return token;
}

void CommitTokens::adopt(const std::string& token, CommitBinding binding, int64_t expires_at_ms, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  prune(now_ms);
  // Never past one TTL from now, whatever the sealed expiry says.
  if (now_ms >= expires_at_ms || seen_.contains(token)) return;
  enter(token, std::move(binding), std::min(expires_at_ms, now_ms + ttl_ms_));
}

void CommitTokens::enter(const std::string& token, CommitBinding binding, int64_t expires_at_ms) {
  auto& mine = by_caller_[binding.caller];
  while (mine.size() >= max_per_caller_) {  // the caller's oldest goes
    tokens_.erase(mine.front());
    mine.pop_front();
  }
  mine.push_back(token);
  by_expiry_.emplace_back(expires_at_ms, token);
  seen_.insert(token);
  tokens_[token] = Entry{std::move(binding), expires_at_ms};
}

bool CommitTokens::redeem(std::string_view token, const CommitBinding& binding, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = tokens_.find(std::string(token));
  if (it == tokens_.end()) return false;
  const bool valid = now_ms < it->second.expires_at_ms && it->second.binding == binding;
  forget_of_caller(it->second.binding.caller, it->first);
  tokens_.erase(it);  // single use, whatever the outcome
  return valid;
}

size_t CommitTokens::outstanding() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tokens_.size();
}

void CommitTokens::prune(int64_t now_ms) {
  while (!by_expiry_.empty() && now_ms >= by_expiry_.front().first) {
    const auto it = tokens_.find(by_expiry_.front().second);
    if (it != tokens_.end()) {
      forget_of_caller(it->second.binding.caller, it->first);
      tokens_.erase(it);
    }
    seen_.erase(by_expiry_.front().second);
    by_expiry_.pop_front();
  }
}

void CommitTokens::forget_of_caller(const std::string& caller, const std::string& token) {
  const auto mine = by_caller_.find(caller);
  if (mine == by_caller_.end()) return;
  std::erase(mine->second, token);
  if (mine->second.empty()) by_caller_.erase(mine);
}

}  // namespace fleetmcp::http
