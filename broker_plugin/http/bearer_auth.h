// Who is calling: the agent token of an "Authorization: Bearer …" header (DESIGN §2), checked
// with common/agent_token.h (signature, alg, expiry, audience) and the revocation list.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "broker_plugin/http/fleet_view.h"
#include "common/agent_token.h"

namespace fleetmcp::http {

struct AuthProblem {
  bool token_present = false;  // false: no credentials at all (RFC 6750 §3.1: no error code)
  std::string description;     // ASCII, says what is wrong without echoing the token
};

class BearerAuth {
 public:
  BearerAuth(Ed25519PublicKey issuer, std::string audience, const FleetView& fleet)
      : issuer_(issuer), audience_(std::move(audience)), fleet_(fleet) {}

  std::variant<AgentToken, AuthProblem> authenticate(std::optional<std::string_view> authorization,
                                                     int64_t now_s) const;

 private:
  Ed25519PublicKey issuer_;
  std::string audience_;
  const FleetView& fleet_;
};

}  // namespace fleetmcp::http
