#include "common/base/config_file.h"

#include "common/base/file_text.h"
#include "common/base/options.h"
#include "common/base/text.h"

namespace fleetmcp {
namespace {

constexpr size_t kMaxConfigBytes = 1 << 20;  // configs are small; a huge file is a mistake

// A '#' at the start of a line or after whitespace starts a comment, so the trailing comments of
// the documented device.conf work, while a '#' inside a value ("a#b") stays part of it.
std::string_view strip_comment(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) return line.substr(0, i);
  }
  return line;
}

ErrorEnvelope fail_at(std::string_view file, int line, std::string_view what) {
  return ErrorEnvelope(ErrorCode::kBadRequest, std::string(file) + ":" + std::to_string(line) + ": " + std::string(what),
              "fix line " + std::to_string(line) + " of " + std::string(file) + "; each line is 'key = value'");
}

Option as_option(const ConfigEntry& entry) { return {entry.key, entry.key, entry.value, {entry.file, entry.line}}; }

}  // namespace

ErrorEnvelope ConfigEntry::error(std::string_view what) const {
  return ErrorEnvelope(ErrorCode::kBadRequest, file + ":" + std::to_string(line) + ": " + key + ": " + std::string(what),
                       "fix the value of " + key + " on line " + std::to_string(line) + " of " + file);
}

void ConfigEntry::fail(std::string_view what) const { throw Error(error(what)); }

// The typed reads are the option reader's (common/base/options.h): one text for each kind of
// mistake, whether in device.conf, mosquitto.conf or on a command line.
int64_t ConfigEntry::as_int(int64_t min, int64_t max) const { return as_option(*this).integer(min, max).value(); }

double ConfigEntry::as_number(double min, double max) const { return as_option(*this).number(min, max).value(); }

bool ConfigEntry::as_bool() const { return as_option(*this).boolean().value(); }

Result<std::vector<ConfigEntry>> parse_config_text(std::string_view text, std::string_view file_name) {
  std::vector<ConfigEntry> entries;
  int number = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view raw = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++number;
    const std::string_view line = trim(strip_comment(raw));
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) return fail_at(file_name, number, "expected 'key = value'");
    const std::string_view key = trim(line.substr(0, eq));
    if (key.empty()) return fail_at(file_name, number, "missing key before '='");
    entries.push_back({std::string(file_name), number, std::string(key), std::string(trim(line.substr(eq + 1)))});
  }
  return entries;
}

Result<std::vector<ConfigEntry>> read_config_file(const std::string& path) {
  const auto text = read_file(path, ErrorCode::kBadRequest, "config file");
  if (!text) return text.error();
  if (text->size() > kMaxConfigBytes) {
    return ErrorEnvelope(ErrorCode::kBadRequest, path + ": larger than 1 MiB", "a config file is a few hundred lines at most");
  }
  return parse_config_text(*text, path);
}

}  // namespace fleetmcp
