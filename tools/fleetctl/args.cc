#include "tools/fleetctl/args.h"

#include <algorithm>

#include "common/base/error.h"

namespace fleetctl {

using fleetmcp::Error;
using fleetmcp::ErrorCode;

Args::Args(const std::vector<std::string>& argv, std::set<std::string> valued, std::set<std::string> switches) {
  switches.insert("help");
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "-h") {
      switches_given_.insert("help");
      continue;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      positionals_.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    const auto eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (switches.count(name)) {
      if (inline_value) throw Error(ErrorCode::kBadRequest, "option --" + name + " takes no value", "drop the =value");
      switches_given_.insert(name);
    } else if (valued.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) {
          throw Error(ErrorCode::kBadRequest, "option --" + name + " needs a value", "write --" + name + " VALUE");
        }
        value = argv[++i];
      }
      values_[name] = value;
    } else {
      throw Error(ErrorCode::kBadRequest, "unknown option --" + name, "see --help for the options");
    }
  }
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::require(const std::string& name) const {
  auto v = get(name);
  if (!v) throw Error(ErrorCode::kBadRequest, "missing required option --" + name, "see --help for usage");
  return *v;
}

bool Args::has(const std::string& name) const { return switches_given_.count(name) != 0; }

int64_t Args::integer(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
  const auto text = get(name);
  if (!text) return fallback;
  int64_t v = 0;
  const bool digits = !text->empty() && text->size() <= 9 &&
                      std::all_of(text->begin(), text->end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) v = std::stoll(*text);
  if (!digits || v < min || v > max) {
    throw Error(ErrorCode::kBadRequest, "--" + name + " must be an integer from " + std::to_string(min) + " to " +
                                            std::to_string(max),
                "for example --" + name + " " + std::to_string(fallback));
  }
  return v;
}

}  // namespace fleetctl
