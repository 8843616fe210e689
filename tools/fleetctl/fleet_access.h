// How fleetctl reaches a running fleet, and as whom (fleetctl nodes, fleetctl call). The defaults
// are the variables scripts/local-fleet.sh prints: FLEETMCP_URL (the /mcp URL), FLEETMCP_MQTT (the
// agent listener) and FLEETMCP_TOKEN (an agent token). The token is read from a file or the
// environment, never from an option value: command lines are visible to every local user (ps).
#pragma once

#include <string>
#include <string_view>

#include "tools/fleetctl/args.h"

namespace fleetctl {

// --<option> if given, else the environment variable, else throws Error(kBadRequest) naming both.
std::string option_or_env(const Args& args, const std::string& option, const char* env_var);

// The agent token: the first line of --token-file, else $FLEETMCP_TOKEN.
std::string agent_token(const Args& args);

// The token's "sub" claim, read without checking the signature (the broker checks it): the MQTT
// username an agent logs in with. Throws Error(kBadRequest) when the token is not a JWT with a sub.
std::string token_subject(std::string_view token);

}  // namespace fleetctl
