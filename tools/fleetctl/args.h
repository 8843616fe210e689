// Command-line arguments of one fleetctl subcommand: "--name value" options, "--flag" switches
// and positionals. Unknown options are an error, so typos never pass silently.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fleetctl {

class Args {
 public:
  // `valued` options take a value; `switches` do not. Throws fleetmcp::Error(kBadRequest) on an
  // unknown option or a missing value. "--help"/"-h" is always accepted as a switch.
  Args(const std::vector<std::string>& argv, std::set<std::string> valued, std::set<std::string> switches);

  std::optional<std::string> get(const std::string& name) const;
  std::string require(const std::string& name) const;  // throws naming the option
  bool has(const std::string& name) const;               // a switch was given
  // --name as an integer from min to max, `fallback` when not given; throws naming the option.
  int64_t integer(const std::string& name, int64_t fallback, int64_t min, int64_t max) const;
  bool help() const { return has("help"); }
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_given_;
  std::vector<std::string> positionals_;
};

}  // namespace fleetctl
