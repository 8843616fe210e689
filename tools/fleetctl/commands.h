// The fleetctl subcommands, one function each, grouped one file per topic:
// pki.cc (pki init/enroll/revoke), token.cc, manifest_cmd.cc, jcs_cmd.cc (jcs), encode.cc (b3),
// nodes_cmd.cc and call_cmd.cc (a running fleet, through fleet_access.h). Each returns the process
// exit code (see kExit*).
#pragma once

#include <string>
#include <vector>

namespace fleetctl {

// Exit codes, documented in `fleetctl --help`.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRefused = 1;   // the thing checked was refused (e.g. manifest verify)
inline constexpr int kExitUsage = 2;     // bad command line
inline constexpr int kExitFailure = 3;   // I/O or other failure

using Argv = std::vector<std::string>;

int cmd_pki(const Argv& args);
int cmd_token(const Argv& args);
int cmd_manifest(const Argv& args);
int cmd_jcs(const Argv& args);
int cmd_b3(const Argv& args);
int cmd_nodes(const Argv& args);
int cmd_call(const Argv& args);

}  // namespace fleetctl
