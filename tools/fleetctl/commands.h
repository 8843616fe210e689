// The fleetctl subcommands, one function each, grouped one file per topic:
// pki.cc (pki init/enroll/revoke), token.cc, manifest_cmd.cc, jcs_cmd.cc (jcs), encode.cc (b3),
// nodes_cmd.cc and call_cmd.cc (a running fleet, through fleet_access.h). Each returns the process
// exit code (see kExit*).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace fleetctl {

// Exit codes, documented in `fleetctl --help`.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRefused = 1;   // the thing checked was refused (e.g. manifest verify)
inline constexpr int kExitUsage = 2;     // bad command line
inline constexpr int kExitFailure = 3;   // I/O or other failure

using Argv = std::vector<std::string>;

// Prints a --help text on stdout; returns kExitOk.
int print_help(const char* text);

// One subcommand of a command that has several (pki, token, manifest).
struct Subcommand {
  std::string_view name;
  int (*run)(const Argv& args);
};
// Runs the subcommand args[0] names with the arguments after it; `--help` prints `help`. A missing
// or unknown name is refused with an E_BAD_REQUEST envelope on stderr naming the choices (exit 2).
int run_subcommand(std::string_view command, std::initializer_list<Subcommand> subcommands, const char* help,
                   const Argv& args);

int cmd_pki(const Argv& args);
int cmd_token(const Argv& args);
int cmd_manifest(const Argv& args);
int cmd_jcs(const Argv& args);
int cmd_b3(const Argv& args);
int cmd_nodes(const Argv& args);
int cmd_call(const Argv& args);

}  // namespace fleetctl
