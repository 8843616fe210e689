// docs/protocol.md §6 needs three global settings in mosquitto.conf that the plugin API cannot see:
//   per_listener_settings false  (2.0.11 never sends MOSQ_EVT_TICK otherwise; false is the default)
//   check_retain_source true     (retained announces are re-checked against their publisher)
//   set_tcp_nodelay true         (request/response latency: 0.4 ms instead of ~70 ms)
// The plugin finds the configuration file on the broker's command line (-c), reads it and its
// include_dir, and refuses to start when a setting is wrong, naming it. Settings it does not need
// but a broker facing the network should have (a packet size limit, issue 24) are warnings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/options.h"

namespace fleetmcp::plugin {

struct BrokerConfigProblem {
  std::string setting;
  std::string message;
};

// Problems found in the concatenated text of the configuration (last occurrence wins, as in
// mosquitto).
std::vector<BrokerConfigProblem> check_broker_config_text(std::string_view text);

// max_packet_size for mosquitto.conf: the largest fleet message (a cmd_ack, common/protocol/cmd_ack.h)
// and 4 KiB for its topic, properties and header. Without a limit mosquitto allocates whatever
// length a packet announces, up to 256 MiB, before anyone has authenticated.
inline constexpr int64_t kRecommendedMaxPacketSize = 256 * 1024 + 4096;

// Settings worth a warning in the broker's log (the broker starts anyway: refusing would stop
// configurations that ran before): max_packet_size absent or 0.
std::vector<BrokerConfigProblem> broker_config_warnings(std::string_view text);

// persistent_client_expiration ("<n>h", d, w, m or y, as mosquitto reads it) in seconds; nullopt
// when absent or not readable (then mosquitto keeps persistent sessions forever).
std::optional<int64_t> persistent_client_expiration_s(std::string_view text);

// The -c/--config-file argument in a NUL-separated command line (/proc/self/cmdline).
std::optional<std::string> config_path_from_cmdline(std::string_view cmdline);

// Reads the file and every *.conf in its include_dir; nullopt when it cannot be read.
std::optional<std::string> read_broker_config(const std::string& path);

// One plugin_opt_<key> line of the configuration: key without "plugin_opt_", file and line.
struct PluginOptLine {
  std::string key;
  OptionSource source;
};

// The plugin_opt_ lines of the file and of its include_dir's *.conf, in the order mosquitto reads
// them, so an option's error can name its line (mosquitto hands a plugin its options without).
std::vector<PluginOptLine> plugin_opt_lines(const std::string& path);

// The options mosquitto gave (key without "plugin_opt_", value, in order) as an OptionSet whose
// entries carry their line in `lines`: the n-th option of a key is the n-th line of that key.
// Without a line (no readable configuration) an option names `config_path`, or nothing.
OptionSet plugin_option_set_at(const std::vector<std::pair<std::string, std::string>>& given,
                               const std::vector<PluginOptLine>& lines, const std::string& config_path);

}  // namespace fleetmcp::plugin
