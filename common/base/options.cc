#include "common/base/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fleetmcp {
namespace {

std::string in_quotes(std::string_view value) {
  std::string out;
  out.reserve(value.size() + 2);
  out.push_back('\'');
  out.append(value);
  out.push_back('\'');
  return out;
}

// "1.5", not "1.500000".
std::string decimal(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

std::string OptionSource::describe() const {
  if (file.empty()) return line > 0 ? "command line argument " + std::to_string(line) : "";
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

ErrorEnvelope Option::error(std::string_view what, std::string_view fix) const {
  const std::string where = source.describe();
  return ErrorEnvelope(ErrorCode::kBadRequest,
                       (where.empty() ? "" : where + ": ") + name + ": " + std::string(what), fix);
}

Result<std::string> Option::text(std::string_view fix_when_empty) const {
  if (value.empty()) return error("is empty", fix_when_empty);
  return value;
}

Result<int64_t> Option::integer(int64_t min, int64_t max) const {
  int64_t v = 0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (value.empty() || ec != std::errc() || ptr != end || v < min || v > max) {
    return error(in_quotes(value) + " is not an integer from " + std::to_string(min) + " to " + std::to_string(max),
                 "write a whole number in that range");
  }
  return v;
}

Result<double> Option::number(double min, double max) const {
  double v = 0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (value.empty() || ec != std::errc() || ptr != end || !std::isfinite(v) || v < min || v > max) {
    return error(in_quotes(value) + " is not a number from " + decimal(min) + " to " + decimal(max),
                 "write a decimal number in that range");
  }
  return v;
}

Result<std::chrono::milliseconds> Option::millis(int64_t min, int64_t max) const {
  auto ms = integer(min, max);
  if (!ms) return std::move(ms).error();
  return std::chrono::milliseconds(*ms);
}

Result<bool> Option::boolean() const {
  if (value == "true" || value == "yes" || value == "on" || value == "1") return true;
  if (value == "false" || value == "no" || value == "off" || value == "0") return false;
  return error(in_quotes(value) + " is not true or false", "write true or false");
}

Result<std::string> Option::readable_file() const {
  if (value.empty()) return error("is empty", "give a file path");
  if (!std::ifstream(value).good()) {
    return error("cannot read " + value, "check the path and that the program's user may read it");
  }
  return value;
}

Result<std::string> Option::directory() const {
  if (value.empty()) return error("is empty", "give a directory path");
  std::error_code ec;
  if (!std::filesystem::is_directory(value, ec)) {
    return error(value + " is not a directory", "check the path and that the program's user may read it");
  }
  return value;
}

std::vector<std::string> Option::words() const {
  std::vector<std::string> out;
  std::istringstream in(value);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

OptionSet OptionSet::from_pairs(std::string prefix, const std::vector<std::pair<std::string, std::string>>& pairs) {
  OptionSet set(std::move(prefix), "");
  for (const auto& [key, value] : pairs) set.add(key, value);
  return set;
}

void OptionSet::add(std::string key, std::string value, OptionSource source) {
  std::string name = prefix_ + key;
  add_named(std::move(key), std::move(name), std::move(value), std::move(source));
}

void OptionSet::add_named(std::string key, std::string name, std::string value, OptionSource source) {
  options_.push_back({std::move(key), std::move(name), std::move(value), std::move(source)});
}

const Option* OptionSet::find(std::string_view key) const {
  for (const Option& option : options_) {
    if (option.key == key) return &option;
  }
  return nullptr;
}

ErrorEnvelope OptionSet::error(std::string_view key, std::string_view what, std::string_view fix) const {
  if (const Option* given = find(key)) return given->error(what, fix);
  return Option{std::string(key), name_of(key), "", {origin_, 0}}.error(what, fix);
}

Status OptionSet::require(std::string_view key, std::string_view fix) const {
  if (has(key)) return {};
  return error(key, "is required", fix);
}

Status OptionSet::check_once(size_t index) const {
  const Option& option = options_[index];
  for (size_t i = 0; i < index; ++i) {
    if (options_[i].key == option.key) return option.error("given twice", "keep one " + option.name);
  }
  return {};
}

namespace {

bool listed(const std::vector<std::string_view>& names, std::string_view name) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace

Result<CommandLine> read_command_line(std::span<const std::string> args, const CommandLineSpec& spec,
                                      int first_index) {
  CommandLine line{OptionSet("--", ""), {}};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const OptionSource at{"", first_index > 0 ? first_index + static_cast<int>(i) : 0};
    Option word{"", arg, "", at};
    std::string key, value;
    bool inline_value = false;
    if (arg == "-h") {
      key = "help";
    } else if (const auto short_name = std::find_if(spec.short_names.begin(), spec.short_names.end(),
                                                    [&](const auto& s) { return s.first == arg; });
               short_name != spec.short_names.end()) {
      key = std::string(short_name->second);
    } else if (arg.starts_with("--") && arg.size() > 2) {
      key = arg.substr(2);
      word.name = "--" + key;
      if (const auto eq = key.find('='); eq != std::string::npos) {
        value = key.substr(eq + 1);
        key.resize(eq);
        word.name = "--" + key;
        inline_value = true;
      }
    } else if (spec.positionals) {
      line.positionals.push_back(arg);
      continue;
    } else {
      return word.error("unexpected argument", spec.unknown_fix);
    }
    if (key == "help" || listed(spec.switches, key)) {
      if (inline_value) return word.error("takes no value", "drop the =value");
      value.clear();
    } else if (listed(spec.valued, key)) {
      if (!inline_value) {
        if (i + 1 >= args.size()) return word.error("needs a value", "write " + word.name + " VALUE");
        value = args[++i];
      }
    } else {
      return word.error("unknown option", spec.unknown_fix);
    }
    if (line.options.has(key)) return word.error("given twice", "keep one " + word.name);
    line.options.add_named(std::move(key), word.name, std::move(value), at);
  }
  return line;
}

}  // namespace fleetmcp
