// fleetctl jcs: the RFC 8785 canonical form of the JSON on stdin. One of the seams other
// implementations test against (docs/protocol.md §11): keep its output byte-for-byte stable.
#include <cstdio>
#include <string>
#include <string_view>

#include "common/base/error.h"
#include "common/crypto/jcs.h"
#include "tools/fleetctl/args.h"
#include "tools/fleetctl/commands.h"

namespace fleetctl {
namespace {

using fleetmcp::Error;
using fleetmcp::ErrorCode;

constexpr const char* kUsage =
    "usage: fleetctl jcs [--lines] < input.json\n"
    "\n"
    "Prints the RFC 8785 (JCS) canonical form of the JSON document on stdin, with no trailing\n"
    "newline: object keys sorted by UTF-16 code units, no whitespace, numbers as ECMAScript\n"
    "prints them. The input must be strict JSON (UTF-8, no duplicate keys, at most 1 MiB and\n"
    "64 levels deep).\n"
    "\n"
    "  --lines   every input line is one JSON document; every output line is its canonical form\n"
    "\n"
    "exit codes: 0 ok, 2 invalid input (error envelope on stderr), 3 I/O failure\n";

std::string read_stdin() {
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) text.append(buf, n);
  if (std::ferror(stdin)) throw Error(ErrorCode::kInternal, "cannot read stdin", "check the input pipe or file");
  return text;
}

void write_stdout(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) {
    throw Error(ErrorCode::kInternal, "cannot write stdout", "check the output pipe or disk space");
  }
}

// Canonicalises each line; a failure names the 1-based line so a test of thousands of values
// points at the one that broke.
void canonicalize_lines(std::string_view text) {
  std::string out;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_no;
    const auto canonical = fleetmcp::jcs::canonicalize_text(line);
    if (!canonical) {
      const fleetmcp::ErrorEnvelope& e = canonical.error();
      throw Error(e.code, "line " + std::to_string(line_no) + ": " + e.message, e.suggested_fix);
    }
    out += *canonical;
    out.push_back('\n');
    if (out.size() >= (1 << 16)) {
      write_stdout(out);
      out.clear();
    }
  }
  write_stdout(out);
}

}  // namespace

int cmd_jcs(const Argv& argv) {
  const Args args(argv, {}, {"lines"});
  if (args.help()) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (!args.positionals().empty()) {
    throw Error(ErrorCode::kBadRequest, "fleetctl jcs takes no arguments, it reads stdin",
                "run: fleetctl jcs < file.json");
  }
  const std::string text = read_stdin();
  if (args.has("lines")) {
    canonicalize_lines(text);
  } else {
    write_stdout(fleetmcp::jcs::canonicalize_text(text).value());
  }
  if (std::fflush(stdout) != 0) {
    throw Error(ErrorCode::kInternal, "cannot write stdout", "check the output pipe or disk space");
  }
  return kExitOk;
}

}  // namespace fleetctl
