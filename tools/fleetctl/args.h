// Command-line arguments of one fleetctl subcommand: "--name value" options, "--flag" switches
// and positionals, read by the shared option reader (common/base/options.h). Unknown and repeated
// options are an error, so typos never pass silently.
//
// fleetctl's subcommands run under main()'s catch (main.cc prints the envelope and exits 2 for
// kBadRequest), so these accessors throw the reader's envelope instead of handing it back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/options.h"

namespace fleetctl {

class Args {
 public:
  // `valued` options take a value; `switches` do not. Throws fleetmcp::Error(kBadRequest) on an
  // unknown or repeated option or a missing value. "--help"/"-h" is always accepted as a switch.
  Args(const std::vector<std::string>& argv, std::vector<std::string_view> valued,
       std::vector<std::string_view> switches);

  std::optional<std::string> get(std::string_view name) const;
  std::string require(std::string_view name) const;  // throws "--<name>: is required"
  bool has(std::string_view name) const { return line_.options.has(name); }  // a switch was given
  // --name as an integer from min to max, `fallback` when not given; throws naming the option.
  int64_t integer(std::string_view name, int64_t fallback, int64_t min, int64_t max) const;
  // --name as an integer from min to max, nullopt when not given; throws naming the option.
  std::optional<int64_t> integer(std::string_view name, int64_t min, int64_t max) const;
  bool help() const { return has("help"); }
  const std::vector<std::string>& positionals() const { return line_.positionals; }

 private:
  fleetmcp::CommandLine line_;
};

}  // namespace fleetctl
