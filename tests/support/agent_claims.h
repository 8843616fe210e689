// The claims of a verified agent token, for tests of what the front does with a caller: quotas
// per caller and tenant, the re-checks at expiry and revocation.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "common/crypto/agent_token.h"

namespace fleetmcp::testing {

inline AgentToken agent(std::string sub, std::string tenant = "acme", int64_t exp_s = 2000, std::string jti = "j1") {
  AgentToken a;
  a.sub = std::move(sub);
  a.tenant = std::move(tenant);
  a.exp = exp_s;
  a.jti = std::move(jti);
  return a;
}

}  // namespace fleetmcp::testing
