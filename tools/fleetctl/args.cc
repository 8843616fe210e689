#include "tools/fleetctl/args.h"

namespace fleetctl {

Args::Args(const std::vector<std::string>& argv, std::vector<std::string_view> valued,
           std::vector<std::string_view> switches)
    : line_(fleetmcp::read_command_line(argv,
                                        {.valued = std::move(valued),
                                         .switches = std::move(switches),
                                         .short_names = {},
                                         .positionals = true,
                                         .unknown_fix = "see --help for the options"},
                                        0)  // a subcommand sees only its own words: no argument numbers
                .value()) {}

std::optional<std::string> Args::get(std::string_view name) const {
  if (const fleetmcp::Option* option = line_.options.find(name)) return option->value;
  return std::nullopt;
}

std::string Args::require(std::string_view name) const {
  line_.options.require(name, "see --help for usage").value();
  return *get(name);
}

int64_t Args::integer(std::string_view name, int64_t fallback, int64_t min, int64_t max) const {
  return integer(name, min, max).value_or(fallback);
}

std::optional<int64_t> Args::integer(std::string_view name, int64_t min, int64_t max) const {
  const fleetmcp::Option* option = line_.options.find(name);
  if (option == nullptr) return std::nullopt;
  return option->integer(min, max).value();
}

}  // namespace fleetctl
