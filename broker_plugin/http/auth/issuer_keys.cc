#include "broker_plugin/http/auth/issuer_keys.h"

#include <algorithm>
#include <chrono>

#include "broker_plugin/http/auth/http_get.h"
#include "common/base/error.h"
#include "common/base/json.h"

namespace fleetmcp::http {
namespace {

ErrorEnvelope refuse(std::string_view why) {
  return ErrorEnvelope(ErrorCode::kSafetyDenied, "access token refused: " + std::string(why),
                       "retry in a moment; if it persists, the authorization server's keys cannot be fetched");
}

// RFC 8414 §3.1: the well-known segment goes between the host and the issuer's path.
std::string oauth_metadata_url(const std::string& issuer) {
  const size_t scheme = issuer.find("://");
  const size_t path = issuer.find('/', scheme + 3);
  if (path == std::string::npos) return issuer + "/.well-known/oauth-authorization-server";
  std::string tail = issuer.substr(path);
  if (tail == "/") tail.clear();
  return issuer.substr(0, path) + "/.well-known/oauth-authorization-server" + tail;
}

// OpenID Connect Discovery 1.0 §4: appended to the issuer.
std::string openid_metadata_url(const std::string& issuer) {
  return (issuer.ends_with('/') ? issuer.substr(0, issuer.size() - 1) : issuer) + "/.well-known/openid-configuration";
}

Result<std::string> jwks_uri(std::string_view metadata, const TrustedIssuer& issuer) {
  auto doc = json::parse_strict(metadata, ErrorCode::kInternal);
  const auto bad = [](std::string_view what) {
    return ErrorEnvelope(ErrorCode::kInternal, "authorization server metadata: " + std::string(what),
                         "check plugin_opt_http_oauth.<name>.issuer against the server's issuer");
  };
  if (!doc || !doc->IsObject()) return bad("not a JSON object");
  // RFC 8414 §3.3: the metadata's issuer must be the one asked for.
  if (json::get_string(*doc, "issuer") != std::optional<std::string_view>(issuer.issuer)) {
    return bad("its issuer is not " + issuer.issuer);
  }
  const auto uri = json::get_string(*doc, "jwks_uri");
  if (!uri || !acceptable_issuer_url(*uri)) return bad("no https jwks_uri");
  return std::string(*uri);
}

}  // namespace

IssuerKeys::IssuerKeys(std::vector<TrustedIssuer> issuers, Fetch fetch, std::function<int64_t()> now_s, Log log)
    : issuers_(std::move(issuers)),
      fetch_(std::move(fetch)),
      now_s_(std::move(now_s)),
      log_(std::move(log)),
      state_(issuers_.size()) {
  if (!issuers_.empty()) thread_ = std::thread([this] { run(); });
}

IssuerKeys::~IssuerKeys() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

const TrustedIssuer* IssuerKeys::find(std::string_view iss) const {
  for (const auto& issuer : issuers_) {
    if (issuer.issuer == iss) return &issuer;
  }
  return nullptr;
}

Result<VerifyKey> IssuerKeys::key(const TrustedIssuer& issuer, std::string_view kid, std::string_view alg) const {
  const size_t index = static_cast<size_t>(&issuer - issuers_.data());
  const int64_t now = now_s_();
  std::lock_guard<std::mutex> lock(mutex_);
  State& state = state_[index];
  if (now >= state.usable_until) {
    return refuse("the keys of issuer " + issuer.name + " are not available (" +
                  (state.last_failure.empty() ? std::string("not fetched yet") : state.last_failure) + ")");
  }
  std::vector<const VerifyKey*> matches;
  for (const auto& key : state.keys) {
    if (kid.empty() ? key.alg == alg : key.kid == kid) matches.push_back(&key);
  }
  if (matches.size() == 1) return *matches.front();
  if (!kid.empty()) {
    // A new key at the issuer (rotation): fetch again, at most once per min_refresh_s.
    if (!state.asked) {
      state.asked = true;
      wake_.notify_all();
    }
    return refuse("the key id (kid) is not among issuer " + issuer.name + "'s keys (they are being fetched again)");
  }
  return refuse("the header has no kid and issuer " + issuer.name + " has " + std::to_string(matches.size()) +
                " keys for its alg");
}

void IssuerKeys::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    const int64_t now = now_s_();
    size_t due = issuers_.size();
    int64_t soonest = now + 60;
    for (size_t i = 0; i < issuers_.size(); ++i) {
      const State& s = state_[i];
      const bool asked = s.asked && now - s.last_attempt >= issuers_[i].min_refresh_s;
      if (asked || now >= s.next_fetch) {
        due = i;
        break;
      }
      soonest = std::min(soonest, s.asked ? s.last_attempt + issuers_[i].min_refresh_s : s.next_fetch);
    }
    if (due == issuers_.size()) {
      wake_.wait_for(lock, std::chrono::seconds(std::max<int64_t>(1, soonest - now)));
      continue;
    }
    state_[due].asked = false;
    state_[due].last_attempt = now;
    lock.unlock();
    auto keys = fetch_keys(issuers_[due]);
    lock.lock();
    store(due, std::move(keys), now_s_());
  }
}

Result<std::vector<VerifyKey>> IssuerKeys::fetch_keys(const TrustedIssuer& issuer) const {
  auto metadata = fetch_(oauth_metadata_url(issuer.issuer), &stopping_);
  if (!metadata && !stopping_) metadata = fetch_(openid_metadata_url(issuer.issuer), &stopping_);
  if (!metadata) return std::move(metadata).error();
  auto uri = jwks_uri(*metadata, issuer);
  if (!uri) return std::move(uri).error();
  auto jwks = fetch_(*uri, &stopping_);
  if (!jwks) return std::move(jwks).error();
  auto keys = parse_jwks(*jwks);
  if (keys && keys->empty()) return ErrorEnvelope(ErrorCode::kInternal, "JWKS: no RS256, ES256 or EdDSA signing key", "");
  return keys;
}

void IssuerKeys::store(size_t index, Result<std::vector<VerifyKey>> keys, int64_t now_s) {
  const TrustedIssuer& issuer = issuers_[index];
  State& state = state_[index];
  if (!keys) {
    state.last_failure = keys.error().message;
    state.next_fetch = now_s + issuer.min_refresh_s;
    if (log_) log_("fleetmcp: oauth issuer " + issuer.name + ": " + state.last_failure);
    return;
  }
  if (log_ && !state.last_failure.empty()) log_("fleetmcp: oauth issuer " + issuer.name + ": keys fetched again");
  state.keys = std::move(*keys);
  state.usable_until = now_s + issuer.key_lifetime_s;
  state.next_fetch = now_s + issuer.key_lifetime_s / 2;
  state.last_failure.clear();
}

}  // namespace fleetmcp::http
