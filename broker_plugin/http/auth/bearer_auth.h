// Who is calling: the agent token of an "Authorization: Bearer …" header (docs/protocol.md §2), checked
// with common/crypto/agent_token.h (signature, alg, expiry, audience) and the revocation list.
//
// An agent sends the same token on every request, and its Ed25519 verification was the largest
// single CPU cost of a tools/call in the front (~15 % of the broker process at 2,000 calls/s,
// docs/http-front.md "Benchmarks"). Tokens that verified are therefore remembered, by their exact
// bytes, and reused only while the clock is before their exp; revocation is checked on every
// request as before. Refused tokens are never remembered, so garbage cannot fill the table.
#pragma once

#include <algorithm>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "broker_plugin/http/auth/issuer_keys.h"
#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/transport/exchange.h"
#include "common/base/result.h"
#include "common/crypto/agent_token.h"

namespace fleetmcp::http {

class BearerAuth {
 public:
  static constexpr size_t kMaxRemembered = 1024;  // distinct live tokens; then the table starts over

  // `external`: the trusted issuers and their keys (may be null: fleetctl tokens only);
  // `resource_url`: the audience their tokens must name unless an issuer configures another.
  BearerAuth(Ed25519PublicKey issuer, std::string audience, const FleetView& fleet, const IssuerKeys* external = nullptr,
             std::string resource_url = "")
      : issuer_(issuer),
        audience_(std::move(audience)),
        fleet_(fleet),
        external_(external),
        resource_url_(std::move(resource_url)) {}

  // Called once per request (the server hands the verdict on with it, exchange.h).
  Authentication authenticate(std::optional<std::string_view> authorization, int64_t now_s) const;

  // The MQTT agent listener's check of an identity provider's token (the plugin core's
  // IssuerTokenCheck, wired by the module): the same verification and the same remembered verdicts
  // as a request's, so a token costs one signature check whichever door it comes in by. Any
  // thread; never waits on the network. Revocation is the caller's check.
  Result<AgentToken> issuer_token(std::string_view token, int64_t now_s) const;

 private:
  Result<SharedAgentToken> verified(std::string_view token, int64_t now_s) const;
  // The claims of a fleetctl token or of a trusted issuer's access token.
  Result<AgentToken> checked(std::string_view token, int64_t now_s) const;

  Ed25519PublicKey issuer_;
  std::string audience_;
  const FleetView& fleet_;
  const IssuerKeys* external_;
  std::string resource_url_;
  // Only verified tokens are remembered, so the end of each one's signature is the issuer's and as
  // good as random: the bucket is chosen by the last 32 bytes, and a long token (an identity
  // provider's RS256 token is ~900 bytes, a fleetctl one ~400) costs no more to find than a short
  // one. Equality still compares every byte.
  struct TokenTailHash {
    using is_transparent = void;
    size_t operator()(std::string_view token) const {
      return std::hash<std::string_view>{}(token.substr(token.size() - std::min<size_t>(token.size(), 32)));
    }
  };
  mutable std::mutex mutex_;  // io threads authenticate concurrently
  // Looked up by the header's bytes as they are (no copy of a token per request).
  mutable std::unordered_map<std::string, SharedAgentToken, TokenTailHash, std::equal_to<>> remembered_;
};

}  // namespace fleetmcp::http
