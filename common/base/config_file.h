// The line format of fleetmcp's own configuration files (device.conf, the ACL policy):
//   # comment
//   key = value
// Blank lines and comments are skipped; whitespace around key and value is trimmed. Every entry
// remembers its file and line so errors can point at them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"

namespace fleetmcp {

struct ConfigEntry {
  std::string file;
  int line = 0;
  std::string key, value;

  // E_BAD_REQUEST "<file>:<line>: <key>: <what>": what a reader returning a Result hands back.
  ErrorEnvelope error(std::string_view what) const;
  // Throws error(what) (start-up reads, docs/CONTRIBUTING.md "Exceptions").
  [[noreturn]] void fail(std::string_view what) const;
  int64_t as_int(int64_t min, int64_t max) const;
  double as_number(double min, double max) const;
  bool as_bool() const;  // true/false/yes/no/on/off/1/0
};

// E_BAD_REQUEST naming the file (unreadable, over 1 MiB) or file:line (a line without '=').
Result<std::vector<ConfigEntry>> read_config_file(const std::string& path);
Result<std::vector<ConfigEntry>> parse_config_text(std::string_view text, std::string_view file_name);

}  // namespace fleetmcp
