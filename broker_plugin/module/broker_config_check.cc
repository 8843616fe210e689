#include "broker_plugin/module/broker_config_check.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "common/base/file_text.h"
#include "common/base/text.h"
#include "common/protocol/cmd_ack.h"

namespace fleetmcp::plugin {
namespace {

static_assert(kRecommendedMaxPacketSize == kMaxCmdAckBytes + 4096, "the largest fleet message and its header");

// setting -> last value, for the settings this check cares about.
std::map<std::string, std::string, std::less<>> last_values(std::string_view text) {
  std::map<std::string, std::string, std::less<>> values;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (line.empty() || line.front() == '#') continue;
    const auto space = line.find_first_of(" \t");
    if (space == std::string_view::npos) continue;
    values[std::string(line.substr(0, space))] = std::string(trim(line.substr(space)));
  }
  return values;
}

}  // namespace

std::vector<BrokerConfigProblem> check_broker_config_text(std::string_view text) {
  const auto values = last_values(text);
  const auto value_of = [&](std::string_view key, std::string_view fallback) {
    const auto it = values.find(key);
    return it == values.end() ? std::string(fallback) : it->second;
  };
  std::vector<BrokerConfigProblem> problems;
  if (value_of("per_listener_settings", "false") != "false") {
    problems.push_back({"per_listener_settings",
                        "per_listener_settings must be false: mosquitto 2.0.11 never sends MOSQ_EVT_TICK otherwise, "
                        "so no expiry sweep and no command dispatch would run"});
  }
  if (value_of("check_retain_source", "false") != "true") {
    problems.push_back({"check_retain_source",
                        "check_retain_source must be true: retained announces are re-checked against their "
                        "publisher's standing (revocation, restored-from-disk verification)"});
  }
  if (value_of("set_tcp_nodelay", "false") != "true") {
    problems.push_back({"set_tcp_nodelay",
                        "set_tcp_nodelay must be true: without it every command round trip waits for Nagle's "
                        "algorithm and delayed ACKs (~70 ms instead of ~0.4 ms)"});
  }
  return problems;
}

std::vector<BrokerConfigProblem> broker_config_warnings(std::string_view text) {
  const auto values = last_values(text);
  const auto limit = values.find("max_packet_size");
  std::vector<BrokerConfigProblem> warnings;
  if (limit == values.end() || limit->second == "0") {
    warnings.push_back({"max_packet_size",
                        "max_packet_size is not set: a client can make mosquitto allocate up to 256 MiB per packet "
                        "before it authenticates. Set max_packet_size " +
                            std::to_string(kRecommendedMaxPacketSize) +
                            " (the largest fleet message, a 256 KiB cmd_ack, and its headers)"});
  }
  return warnings;
}

std::optional<int64_t> persistent_client_expiration_s(std::string_view text) {
  const auto values = last_values(text);
  const auto it = values.find("persistent_client_expiration");
  if (it == values.end() || it->second.size() < 2) return std::nullopt;
  static const std::map<char, int64_t> kUnits{{'h', 3600}, {'d', 86400}, {'w', 7 * 86400}, {'m', 30 * 86400},
                                              {'y', 365 * 86400}};
  const std::string& value = it->second;
  const auto unit = kUnits.find(value.back());
  const std::string_view digits = std::string_view(value).substr(0, value.size() - 1);
  if (unit == kUnits.end() || digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const int64_t n = std::stoll(std::string(digits));
  return n > 0 ? std::optional<int64_t>(n * unit->second) : std::nullopt;
}

std::optional<std::string> config_path_from_cmdline(std::string_view cmdline) {
  std::vector<std::string_view> args;
  while (!cmdline.empty()) {
    const auto nul = cmdline.find('\0');
    args.push_back(cmdline.substr(0, nul));
    cmdline = nul == std::string_view::npos ? std::string_view{} : cmdline.substr(nul + 1);
  }
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "-c" || args[i] == "--config-file") return std::string(args[i + 1]);
  }
  return std::nullopt;
}

namespace {

// The file, then the *.conf of its include_dir in alphabetical order, as mosquitto reads them.
std::vector<std::string> config_files(const std::string& path, std::string_view text) {
  std::vector<std::string> files{path};
  const auto values = last_values(text);
  const auto dir = values.find("include_dir");
  if (dir == values.end()) return files;
  std::vector<std::filesystem::path> parts;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir->second, ec)) {
    if (entry.path().extension() == ".conf") parts.push_back(entry.path());
  }
  std::sort(parts.begin(), parts.end());
  for (const auto& part : parts) files.push_back(part.string());
  return files;
}

}  // namespace

std::optional<std::string> read_broker_config(const std::string& path) {
  auto text = try_read_file(path);
  if (!text) return std::nullopt;
  const auto files = config_files(path, *text);
  for (size_t i = 1; i < files.size(); ++i) {
    if (const auto more = try_read_file(files[i])) *text += "\n" + *more;
  }
  return text;
}

std::vector<PluginOptLine> plugin_opt_lines(const std::string& path) {
  constexpr std::string_view kPrefix = "plugin_opt_";
  const auto main_text = try_read_file(path);
  if (!main_text) return {};
  std::vector<PluginOptLine> lines;
  for (const std::string& file : config_files(path, *main_text)) {
    const auto text = file == path ? main_text : try_read_file(file);
    if (!text) continue;
    std::string_view rest = *text;
    for (int number = 1; !rest.empty(); ++number) {
      const auto nl = rest.find('\n');
      const std::string_view line = trim(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
      if (!line.starts_with(kPrefix)) continue;
      const std::string_view key = line.substr(kPrefix.size(), line.find_first_of(" \t") - kPrefix.size());
      lines.push_back({std::string(key), {file, number}});
    }
  }
  return lines;
}

OptionSet plugin_option_set_at(const std::vector<std::pair<std::string, std::string>>& given,
                               const std::vector<PluginOptLine>& lines, const std::string& config_path) {
  OptionSet set("plugin_opt_", config_path);
  std::vector<bool> used(lines.size(), false);
  for (const auto& [key, value] : given) {
    OptionSource source{config_path, 0};
    for (size_t i = 0; i < lines.size(); ++i) {
      if (used[i] || lines[i].key != key) continue;
      used[i] = true;
      source = lines[i].source;
      break;
    }
    set.add(key, value, std::move(source));
  }
  return set;
}

}  // namespace fleetmcp::plugin
