#include "common/base/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetmcp {
namespace {

using std::chrono::milliseconds;

const std::string kReadable = std::string(FLEETMCP_SOURCE_DIR) + "/acl/fleetmcp.acl";
const std::string kDirectory = std::string(FLEETMCP_SOURCE_DIR) + "/acl";

// An option written on line 42 of mosquitto.conf.
Option at_line_42(std::string key, std::string value) {
  return {key, "plugin_opt_" + key, std::move(value), {"mosquitto.conf", 42}};
}

template <typename T>
std::string message_of(const Result<T>& result) {
  EXPECT_FALSE(result.ok());
  if (result.ok()) return "";
  EXPECT_EQ(result.error().code, ErrorCode::kBadRequest);
  EXPECT_FALSE(result.error().suggested_fix.empty());
  return result.error().message;
}

TEST(OptionSource, SaysFileAndLineOrTheArgument) {
  EXPECT_EQ((OptionSource{"mosquitto.conf", 42}).describe(), "mosquitto.conf:42");
  EXPECT_EQ((OptionSource{"mosquitto.conf", 0}).describe(), "mosquitto.conf");
  EXPECT_EQ((OptionSource{"", 3}).describe(), "command line argument 3");
  EXPECT_EQ((OptionSource{}).describe(), "");
}

TEST(Option, IntegerInARange) {
  EXPECT_EQ(*at_line_42("http_max_connections", "512").integer(1, 1'000'000), 512);
  EXPECT_EQ(message_of(at_line_42("http_max_connections", "0").integer(1, 65535)),
            "mosquitto.conf:42: plugin_opt_http_max_connections: '0' is not an integer from 1 to 65535");
  for (const char* bad : {"", "12x", "1.5", " 3", "99999999999999999999", "-"}) {
    EXPECT_NE(message_of(at_line_42("n", bad).integer(INT64_MIN, INT64_MAX)).find("mosquitto.conf:42: plugin_opt_n: '"),
              std::string::npos)
        << bad;
  }
}

TEST(Option, DecimalNumberInARange) {
  EXPECT_DOUBLE_EQ(*at_line_42("rate", "0.5").number(0, 1), 0.5);
  EXPECT_EQ(message_of(at_line_42("rate", "1.5").number(0.001, 1)),
            "mosquitto.conf:42: plugin_opt_rate: '1.5' is not a number from 0.001 to 1");
  EXPECT_FALSE(at_line_42("rate", "inf").number(0, 1e300).ok());
  EXPECT_FALSE(at_line_42("rate", "1e").number(0, 10).ok());
}

TEST(Option, DurationInMilliseconds) {
  EXPECT_EQ(*at_line_42("http_read_timeout_ms", "1500").millis(100, 3'600'000), milliseconds(1500));
  EXPECT_EQ(message_of(at_line_42("http_read_timeout_ms", "1s").millis(100, 3'600'000)),
            "mosquitto.conf:42: plugin_opt_http_read_timeout_ms: '1s' is not an integer from 100 to 3600000");
}

TEST(Option, Boolean) {
  for (const char* yes : {"true", "yes", "on", "1"}) EXPECT_TRUE(*at_line_42("b", yes).boolean()) << yes;
  for (const char* no : {"false", "no", "off", "0"}) EXPECT_FALSE(*at_line_42("b", no).boolean()) << no;
  EXPECT_EQ(message_of(at_line_42("control_api", "maybe").boolean()),
            "mosquitto.conf:42: plugin_opt_control_api: 'maybe' is not true or false");
}

TEST(Option, TextThatMustNotBeEmpty) {
  EXPECT_EQ(*at_line_42("token_audience", "fleetmcp").text("write it"), "fleetmcp");
  const auto empty = at_line_42("token_audience", "").text("write the aud your tokens carry");
  EXPECT_EQ(message_of(empty), "mosquitto.conf:42: plugin_opt_token_audience: is empty");
  EXPECT_EQ(empty.error().suggested_fix, "write the aud your tokens carry");
}

TEST(Option, ReadableFileAndDirectory) {
  EXPECT_EQ(*at_line_42("ca_file", kReadable).readable_file(), kReadable);
  EXPECT_EQ(message_of(at_line_42("ca_file", "/nonexistent/ca.crt").readable_file()),
            "mosquitto.conf:42: plugin_opt_ca_file: cannot read /nonexistent/ca.crt");
  EXPECT_EQ(message_of(at_line_42("ca_file", "").readable_file()), "mosquitto.conf:42: plugin_opt_ca_file: is empty");
  EXPECT_EQ(*at_line_42("certs", kDirectory).directory(), kDirectory);
  EXPECT_EQ(message_of(at_line_42("certs", kReadable).directory()),
            "mosquitto.conf:42: plugin_opt_certs: " + kReadable + " is not a directory");
}

TEST(Option, OneOfSomeNamesAndWords) {
  enum class Mode { kA, kB, kC };
  const auto mode = [](std::string value) {
    return at_line_42("http_tools_mode", std::move(value))
        .one_of<Mode>({{"by_kind", Mode::kA}, {"per_node", Mode::kB}, {"compact", Mode::kC}}, "by_kind suits all");
  };
  EXPECT_EQ(*mode("per_node"), Mode::kB);
  EXPECT_EQ(message_of(mode("nodes")), "mosquitto.conf:42: plugin_opt_http_tools_mode: must be by_kind, per_node or compact");
  EXPECT_EQ(mode("x").error().suggested_fix, "by_kind suits all");
  EXPECT_EQ(at_line_42("origins", " a  b\tc ").words(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Option, WithoutASourceTheMessageStartsWithTheName) {
  const Option bare{"loopback_port", "plugin_opt_loopback_port", "x", {}};
  EXPECT_EQ(message_of(bare.integer(1, 65535)), "plugin_opt_loopback_port: 'x' is not an integer from 1 to 65535");
}

struct Config {
  int64_t port = 0;
  bool flag = false;
};

constexpr OptionRule<Config> kRules[] = {
    {"port", [](Config& c, const Option& o) { return assign(c.port, o.integer(1, 65535)); }},
    {"flag", [](Config& c, const Option& o) { return assign(c.flag, o.boolean()); }},
};

OptionSet conf(std::vector<std::pair<std::string, std::string>> lines) {
  OptionSet set("plugin_opt_", "mosquitto.conf");
  int line = 10;
  for (auto& [key, value] : lines) set.add(key, value, {"mosquitto.conf", ++line});
  return set;
}

TEST(OptionSet, ReadsEachKeyThroughItsRule) {
  Config c;
  ASSERT_TRUE(conf({{"port", "1884"}, {"flag", "on"}}).read<Config>(kRules, c, "see the docs").ok());
  EXPECT_EQ(c.port, 1884);
  EXPECT_TRUE(c.flag);
}

TEST(OptionSet, NamesTheUnknownTheRepeatedAndTheMissingKey) {
  Config c;
  const Status unknown = conf({{"port", "1884"}, {"prot", "1"}}).read<Config>(kRules, c, "see docs/plugin.md");
  EXPECT_EQ(message_of(unknown), "mosquitto.conf:12: plugin_opt_prot: unknown option");
  EXPECT_EQ(unknown.error().suggested_fix, "see docs/plugin.md");
  EXPECT_EQ(message_of(conf({{"port", "1884"}, {"flag", "1"}, {"port", "1"}}).read<Config>(kRules, c, "")),
            "mosquitto.conf:13: plugin_opt_port: given twice");
  EXPECT_EQ(message_of(conf({{"port", "0"}}).read<Config>(kRules, c, "")),
            "mosquitto.conf:11: plugin_opt_port: '0' is not an integer from 1 to 65535");
  const OptionSet no_port = conf({{"flag", "1"}});
  EXPECT_EQ(message_of(no_port.require("port", "add a plugin_opt_port line")),
            "mosquitto.conf: plugin_opt_port: is required");
  EXPECT_TRUE(no_port.require("flag", "").ok());
  // Keys another reader owns are left to it.
  EXPECT_TRUE(conf({{"http_listen", "off"}, {"port", "1"}})
                  .read<Config>(kRules, c, "", [](std::string_view k) { return k.starts_with("http_"); })
                  .ok());
}

TEST(OptionSet, AnErrorAboutTwoOptionsNamesWhereTheFirstWasGiven) {
  const OptionSet set = conf({{"flag", "1"}, {"port", "5"}});
  EXPECT_EQ(set.error("port", "must be less than plugin_opt_max", "lower it").message,
            "mosquitto.conf:12: plugin_opt_port: must be less than plugin_opt_max");
  EXPECT_EQ(set.error("tls_key", "is missing", "give both").message, "mosquitto.conf: plugin_opt_tls_key: is missing");
  EXPECT_EQ(OptionSet::from_pairs("plugin_opt_", {}).error("k", "is missing", "x").message, "plugin_opt_k: is missing");
}

const CommandLineSpec kSpec{
    .valued = {"config", "workers"},
    .switches = {"json"},
    .short_names = {{"-c", "config"}},
    .positionals = true,
    .unknown_fix = "run it with --help",
};

Result<CommandLine> command_line(std::vector<std::string> args, int first_index = 1) {
  return read_command_line(args, kSpec, first_index);
}

TEST(CommandLine, ValuedOptionsSwitchesShortNamesAndPositionals) {
  const auto line = command_line({"init", "--config", "a.conf", "--workers=4", "--json", "-h", "extra"});
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->options.find("config")->value, "a.conf");
  EXPECT_EQ(line->options.find("workers")->value, "4");
  EXPECT_TRUE(line->options.has("json"));
  EXPECT_TRUE(line->options.has("help"));
  EXPECT_EQ(line->positionals, (std::vector<std::string>{"init", "extra"}));
  const auto short_config = command_line({"-c", "b.conf"});
  EXPECT_EQ(short_config->options.find("config")->value, "b.conf");
  EXPECT_EQ(short_config->options.find("config")->name, "-c");
  // A typed read names the argument it came from.
  EXPECT_EQ(message_of(command_line({"--json", "--workers", "x"})->options.find("workers")->integer(1, 256)),
            "command line argument 2: --workers: 'x' is not an integer from 1 to 256");
}

TEST(CommandLine, NamesTheArgumentThatIsWrong) {
  EXPECT_EQ(message_of(command_line({"--json", "--wokers", "2"})), "command line argument 2: --wokers: unknown option");
  EXPECT_EQ(command_line({"--wokers"}).error().suggested_fix, "run it with --help");
  EXPECT_EQ(message_of(command_line({"--config"})), "command line argument 1: --config: needs a value");
  EXPECT_EQ(message_of(command_line({"--json=yes"})), "command line argument 1: --json: takes no value");
  EXPECT_EQ(message_of(command_line({"--json", "--json"})), "command line argument 2: --json: given twice");
  EXPECT_EQ(message_of(command_line({"--wokers"}, 0)), "--wokers: unknown option");  // position unknown
  EXPECT_EQ(message_of(command_line({"-c", "a", "-c", "b"})), "command line argument 3: -c: given twice");
  CommandLineSpec no_words = kSpec;
  no_words.positionals = false;
  EXPECT_EQ(message_of(read_command_line(std::vector<std::string>{"stray"}, no_words, 1)),
            "command line argument 1: stray: unexpected argument");
  EXPECT_EQ(message_of(command_line({"--config", "a"})->options.require("workers", "add --workers N")),
            "--workers: is required");
}

}  // namespace
}  // namespace fleetmcp
