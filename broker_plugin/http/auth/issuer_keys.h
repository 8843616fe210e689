// The signing keys of the trusted issuers (trusted_issuer.h), kept fresh by a thread of their own:
// it finds each issuer's jwks_uri in its metadata (RFC 8414, else OpenID discovery), fetches the
// JWKS (http_get.h) and swaps the keys in. Nothing else ever waits on the network: key() answers
// from memory, and a kid it does not know asks the thread for a fetch (at most one per
// min_refresh_s) and is refused meanwhile (fail closed).
//
// Keys are used until key_lifetime_s after the last successful fetch; the thread fetches again
// at half that, so while the issuer is up keys never lapse, and while it is down the keys already
// fetched keep working until their lifetime ends and nothing else does.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "broker_plugin/http/auth/jwks.h"
#include "broker_plugin/http/auth/trusted_issuer.h"
#include "common/base/result.h"

namespace fleetmcp::http {

class IssuerKeys {
 public:
  // A GET (http_get.h) that gives up once `stop` is true.
  using Fetch = std::function<Result<std::string>(const std::string& url, const std::atomic<bool>* stop)>;
  using Log = std::function<void(std::string_view)>;

  // Starts the fetcher thread when there is an issuer; `now_s` is the wall clock in seconds.
  IssuerKeys(std::vector<TrustedIssuer> issuers, Fetch fetch, std::function<int64_t()> now_s, Log log);
  ~IssuerKeys();  // stops the thread, aborting a fetch under way (within about a second)
  IssuerKeys(const IssuerKeys&) = delete;
  IssuerKeys& operator=(const IssuerKeys&) = delete;

  const std::vector<TrustedIssuer>& issuers() const { return issuers_; }
  // The issuer whose "iss" this is, or null.
  const TrustedIssuer* find(std::string_view iss) const;

  // The key of `issuer` with this kid (without a kid: its one key for `alg`), or E_SAFETY_DENIED
  // saying why not. Never blocks on the network.
  Result<VerifyKey> key(const TrustedIssuer& issuer, std::string_view kid, std::string_view alg) const;

 private:
  struct State {
    std::vector<VerifyKey> keys;
    int64_t usable_until = 0;  // last successful fetch + key_lifetime_s
    int64_t next_fetch = 0;
    int64_t last_attempt = 0;
    bool asked = false;        // an unknown kid asked for a fetch
    std::string last_failure;  // why the last fetch failed, "" after a success
  };

  void run();
  // Metadata then JWKS; called without the lock.
  Result<std::vector<VerifyKey>> fetch_keys(const TrustedIssuer& issuer) const;
  void store(size_t index, Result<std::vector<VerifyKey>> keys, int64_t now_s);

  std::vector<TrustedIssuer> issuers_;
  Fetch fetch_;
  std::function<int64_t()> now_s_;
  Log log_;
  mutable std::mutex mutex_;
  mutable std::condition_variable wake_;
  mutable std::vector<State> state_;
  std::atomic<bool> stopping_ = false;
  std::thread thread_;
};

}  // namespace fleetmcp::http
