#include "broker_plugin/http/commit_tokens.h"

#include <sodium.h>

#include <array>

#include "common/bytes.h"
#include "common/digest.h"
#include "common/jcs.h"

namespace fleetmcp::http {

std::string arguments_hash(const json::Value& arguments) { return sha256_hex(jcs::canonicalize(arguments)); }

std::string CommitTokens::issue(CommitBinding binding, int64_t now_ms) {
  std::array<uint8_t, 24> random{};
  randombytes_buf(random.data(), random.size());
  std::string token = "ct_" + base64url_encode(random);
  std::lock_guard<std::mutex> lock(mutex_);
  prune(now_ms);
  tokens_[token] = Entry{std::move(binding), now_ms + ttl_ms_};
  return token;
}

bool CommitTokens::redeem(std::string_view token, const CommitBinding& binding, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = tokens_.find(std::string(token));
  if (it == tokens_.end()) return false;
  const bool valid = now_ms < it->second.expires_at_ms && it->second.binding == binding;
  tokens_.erase(it);  // single use, whatever the outcome
  return valid;
}

size_t CommitTokens::outstanding() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tokens_.size();
}

void CommitTokens::prune(int64_t now_ms) {
  for (auto it = tokens_.begin(); it != tokens_.end();) {
    it = now_ms >= it->second.expires_at_ms ? tokens_.erase(it) : std::next(it);
  }
}

}  // namespace fleetmcp::http
