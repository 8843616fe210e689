#include "broker_plugin/http/auth/bearer_auth.h"

#include <algorithm>
#include <cctype>

#include "broker_plugin/http/auth/issuer_token.h"
#include "common/base/error.h"
#include "common/crypto/compact_jws.h"

namespace fleetmcp::http {
namespace {

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; the scheme is case-insensitive.
std::optional<std::string_view> bearer_token(std::string_view header) {
  constexpr std::string_view kScheme = "bearer";
  if (header.size() <= kScheme.size() || header[kScheme.size()] != ' ') return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(header[i])) != kScheme[i]) return std::nullopt;
  }
  std::string_view token = header.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty()) return std::nullopt;
  return token;
}

}  // namespace

Authentication BearerAuth::authenticate(std::optional<std::string_view> authorization, int64_t now_s) const {
  if (!authorization) return AuthProblem{false, "no Authorization header"};
  const auto token = bearer_token(*authorization);
  if (!token) return AuthProblem{true, "the Authorization header is not a Bearer token"};
  auto agent = verified(*token, now_s);
  // verify_agent_token's verdict; its message never echoes the token.
  if (!agent) return AuthProblem{true, agent.error().message};
  if (fleet_.token_revoked((*agent)->jti)) return AuthProblem{true, "the token has been revoked"};
  if ((*agent)->has_scope(kScopeFleetBridge)) {
    return AuthProblem{true, "a fleet:bridge token is for broker bridges, not for agents"};
  }
  return std::move(*agent);
}

Result<AgentToken> BearerAuth::issuer_token(std::string_view token, int64_t now_s) const {
  auto agent = verified(token, now_s);
  if (!agent) return std::move(agent).error();
  return **agent;
}

Result<SharedAgentToken> BearerAuth::verified(std::string_view token, int64_t now_s) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = remembered_.find(token);
    // Before exp the verdict of verify_agent_token cannot have changed (same bytes, same issuer
    // key and audience; iat was already in the past). From exp on, verify again: it decides.
    if (it != remembered_.end()) {
      if (now_s < it->second->exp) return it->second;
      remembered_.erase(it);
    }
  }
  auto claims = checked(token, now_s);
  if (!claims) return std::move(claims).error();
  SharedAgentToken agent = std::make_shared<const AgentToken>(std::move(*claims));
  std::lock_guard<std::mutex> lock(mutex_);
  if (remembered_.size() >= kMaxRemembered) remembered_.clear();
  remembered_.insert_or_assign(std::string(token), agent);
  return agent;
}

Result<AgentToken> BearerAuth::checked(std::string_view token, int64_t now_s) const {
  const auto iss = jws::unverified_issuer(token);
  if (!iss) return verify_agent_token(token, issuer_, audience_, now_s);  // fleetctl tokens carry no iss
  const TrustedIssuer* trusted = external_ ? external_->find(*iss) : nullptr;
  if (!trusted) {
    return ErrorEnvelope(ErrorCode::kSafetyDenied, "access token refused: its issuer (iss) is not one this resource trusts",
                         "sign in through an authorization server the resource metadata lists");
  }
  const auto keys = [&](std::string_view kid, std::string_view alg) { return external_->key(*trusted, kid, alg); };
  return verify_issuer_token(token, *trusted, trusted->audience.empty() ? resource_url_ : trusted->audience, keys, now_s);
}

}  // namespace fleetmcp::http
