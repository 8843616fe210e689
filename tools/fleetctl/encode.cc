// fleetctl b3: BLAKE3-256 of stdin as lowercase hex (docs/protocol.md §11; a seam other implementations
// test against, so the output is exactly 64 hex digits and a newline). `fleetctl jcs` is in
// jcs_cmd.cc.
#include <cstdio>
#include <iostream>

#include "common/base/bytes.h"
#include "common/crypto/digest.h"
#include "common/base/error.h"
#include "tools/fleetctl/args.h"
#include "tools/fleetctl/commands.h"

namespace fleetctl {

namespace {

constexpr const char* kB3Help =
    "usage: fleetctl b3 < FILE\n\n"
    "Prints the BLAKE3-256 hash of stdin as 64 lowercase hex digits (same as b3sum --no-names).\n"
    "Reads in chunks, so input of any size works.\n";

}  // namespace

int cmd_b3(const Argv& argv) {
  Args args(argv, {}, {});
  if (args.help()) {
    std::cout << kB3Help;
    return kExitOk;
  }
  if (!args.positionals().empty()) throw fleetmcp::Error(fleetmcp::ErrorCode::kBadRequest, "b3 reads stdin and takes no arguments", "fleetctl b3 < FILE");
  fleetmcp::Blake3Hasher hasher;
  static unsigned char buf[64 * 1024];  // static: keeps 64 KiB off the stack
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) hasher.update({buf, n});
  if (std::ferror(stdin)) throw fleetmcp::Error(fleetmcp::ErrorCode::kInternal, "cannot read stdin", "check the input");
  std::cout << fleetmcp::hex_lower(hasher.finalize()) << "\n";
  return kExitOk;
}

}  // namespace fleetctl
