#include "tools/fleetctl/fleet_access.h"

#include <cstdlib>

#include "common/crypto/agent_token.h"
#include "common/base/error.h"
#include "common/base/file_text.h"

namespace fleetctl {

using fleetmcp::Error;
using fleetmcp::ErrorCode;

std::string option_or_env(const Args& args, const std::string& option, const char* env_var) {
  if (auto value = args.get(option)) return *value;
  if (const char* value = std::getenv(env_var); value && *value) return value;
  throw Error(ErrorCode::kBadRequest, "no --" + option + " and no " + env_var + " in the environment",
              std::string("give --") + option + " or export " + env_var +
                  " (scripts/local-fleet.sh prints it when the fleet is up)");
}

std::string agent_token(const Args& args) {
  std::string token;
  if (auto file = args.get("token-file")) {
    token = fleetmcp::read_file(*file, ErrorCode::kBadRequest, "token file").value();
    token = token.substr(0, token.find_first_of("\r\n"));
  } else if (const char* value = std::getenv("FLEETMCP_TOKEN"); value && *value) {
    token = value;
  } else {
    throw Error(ErrorCode::kBadRequest, "no agent token: no --token-file and no FLEETMCP_TOKEN in the environment",
                "export FLEETMCP_TOKEN (scripts/local-fleet.sh prints it), or issue one with "
                "fleetctl token issue and pass --token-file");
  }
  if (token.empty()) throw Error(ErrorCode::kBadRequest, "the agent token is empty", "issue one with fleetctl token issue");
  return token;
}

std::string token_subject(std::string_view token) {
  auto sub = fleetmcp::unverified_subject(token);
  if (!sub) {  // a malformed token is the operator's input here: a usage error
    throw Error(ErrorCode::kBadRequest, "the agent token is not a JWT with a sub claim",
                "use a token from fleetctl token issue, or give --user");
  }
  return std::move(*sub);
}

}  // namespace fleetctl
