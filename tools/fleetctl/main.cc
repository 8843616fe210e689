// fleetctl: the operator CLI of fleetmcp (docs/protocol.md §11).
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string_view>

#include "common/base/error.h"
#include "tools/fleetctl/commands.h"

namespace {

struct Command {
  const char* name;
  int (*run)(const fleetctl::Argv&);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"pki", fleetctl::cmd_pki, "test CA, node enrolment bundles, revocation (pki init|enroll|revoke)"},
    {"token", fleetctl::cmd_token, "agent bearer tokens (token issue)"},
    {"manifest", fleetctl::cmd_manifest, "sign and verify capability manifests (manifest sign|verify)"},
    {"jcs", fleetctl::cmd_jcs, "RFC 8785 canonical form of the JSON on stdin"},
    {"b3", fleetctl::cmd_b3, "BLAKE3-256 hex of stdin"},
    {"nodes", fleetctl::cmd_nodes, "the nodes your agent token sees, with state and capabilities (MQTT)"},
    {"call", fleetctl::cmd_call, "call one tool of one node through the broker's RFC-0009 endpoint"},
};

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: fleetctl <command> [options]   (fleetctl <command> --help for details)\n\n"
               "commands:\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
  std::fprintf(out,
               "\nexit codes: 0 ok, 1 refused (what was checked failed), 2 usage error, 3 other failure\n"
               "errors are printed on stderr as an RFC-0001 error envelope (JSON)\n");
}

}  // namespace

int fleetctl::print_help(const char* text) {
  std::cout << text;
  return kExitOk;
}

int fleetctl::run_subcommand(std::string_view command, std::initializer_list<Subcommand> subcommands,
                             const char* help, const Argv& args) {
  const std::string_view name = args.empty() ? std::string_view() : std::string_view(args[0]);
  if (name == "--help" || name == "-h" || name == "help") return print_help(help);
  const Argv rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  std::string choices;
  for (const Subcommand& s : subcommands) {
    if (s.name == name) return s.run(rest);
    if (!choices.empty()) choices += '|';
    choices += s.name;
  }
  const std::string what(command);
  std::cerr << fleetmcp::ErrorEnvelope(fleetmcp::ErrorCode::kBadRequest,
                                       name.empty() ? what + " needs a subcommand"
                                                    : "unknown " + what + " subcommand '" + std::string(name) + "'",
                                       "use fleetctl " + what + " " + choices + " (see fleetctl " + what + " --help)")
                   .to_json()
            << "\n";
  return kExitUsage;
}

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? fleetctl::kExitUsage : fleetctl::kExitOk;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::puts("fleetctl " FLEETMCP_VERSION);
    return 0;
  }
  const std::string_view name = argv[1];
  fleetctl::Argv rest(argv + 2, argv + argc);
  for (const auto& c : kCommands) {
    if (name != c.name) continue;
    try {
      return c.run(rest);
    } catch (const fleetmcp::Error& e) {
      std::cerr << e.envelope().to_json() << "\n";
      return e.code() == fleetmcp::ErrorCode::kBadRequest ? fleetctl::kExitUsage : fleetctl::kExitFailure;
    } catch (const std::exception& e) {
      std::cerr << fleetmcp::ErrorEnvelope(fleetmcp::ErrorCode::kInternal, e.what(), "report this as a bug").to_json()
                << "\n";
      return fleetctl::kExitFailure;
    }
  }
  std::fprintf(stderr, "fleetctl: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return fleetctl::kExitUsage;
}
