#include "broker_plugin/module/broker_config_check.h"
#include "broker_plugin/core/plugin_options.h"
#include "common/base/error.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace fleetmcp::plugin {
namespace {

const std::string kReadable = std::string(FLEETMCP_SOURCE_DIR) + "/acl/fleetmcp.acl";

OptionList minimal() {
  return {{"ca_file", kReadable}, {"issuer_public_key", kReadable}, {"acl_file", kReadable}, {"loopback_port", "1884"}};
}

std::string refusal(const OptionList& options) {
  const auto parsed = parse_plugin_options(plugin_option_set(options));
  if (parsed.ok()) {
    ADD_FAILURE() << "options accepted";
    return "";
  }
  EXPECT_EQ(parsed.error().code, ErrorCode::kBadRequest);
  return parsed.error().message;
}

TEST(PluginOptions, MinimalConfigurationGetsTheDocumentedDefaults) {
  const PluginOptions o = parse_plugin_options(plugin_option_set(minimal())).value();
  EXPECT_EQ(o.loopback_port, 1884);
  EXPECT_EQ(o.token_audience, "fleetmcp");
  EXPECT_EQ(o.audit_log, "-");
  EXPECT_EQ(o.waker_username, "fleetmcp-plugin");
  EXPECT_FALSE(o.control_api);
  EXPECT_TRUE(o.broker_config_check);
  EXPECT_EQ(o.verdict_cache_entries, 65536u);
  EXPECT_EQ(o.max_persistent_sessions_per_principal, 32u);
}

TEST(PluginOptions, EachRequiredOptionIsNamedWhenMissing) {
  for (const std::string key : {"ca_file", "issuer_public_key", "acl_file", "loopback_port"}) {
    OptionList options;
    for (const auto& o : minimal()) {
      if (o.first != key) options.push_back(o);
    }
    EXPECT_EQ(refusal(options), "plugin_opt_" + key + ": is required");
  }
}

TEST(PluginOptions, UnknownRepeatedAndMalformedOptionsAreNamed) {
  auto with = [](std::pair<std::string, std::string> extra) {
    auto o = minimal();
    o.push_back(std::move(extra));
    return o;
  };
  EXPECT_EQ(refusal(with({"ca_fille", "x"})), "plugin_opt_ca_fille: unknown option");
  EXPECT_EQ(refusal(with({"loopback_port", "1885"})), "plugin_opt_loopback_port: given twice");
  EXPECT_NE(refusal(with({"control_api", "maybe"})).find("plugin_opt_control_api: 'maybe' is not true or false"),
            std::string::npos);
  EXPECT_NE(refusal(with({"verdict_cache_entries", "3"})).find("plugin_opt_verdict_cache_entries:"), std::string::npos);
  EXPECT_NE(refusal(with({"max_persistent_sessions_per_principal", "-1"}))
                .find("plugin_opt_max_persistent_sessions_per_principal:"),
            std::string::npos);
  EXPECT_NE(refusal(with({"token_audience", ""})).find("plugin_opt_token_audience: is empty"), std::string::npos);
  EXPECT_NE(refusal(with({"schemas_dir", "/nonexistent"})).find("plugin_opt_schemas_dir: cannot read"),
            std::string::npos);
  auto bad_port = minimal();
  bad_port[3].second = "70000";
  EXPECT_NE(refusal(bad_port).find("plugin_opt_loopback_port: '70000' is not an integer from 1 to 65535"),
            std::string::npos);
  auto missing_file = minimal();
  missing_file[0].second = "/nonexistent/ca.crt";
  EXPECT_NE(refusal(missing_file).find("plugin_opt_ca_file: cannot read /nonexistent/ca.crt"), std::string::npos);
}

// mosquitto hands the plugin its options without their lines; plugin_entry.cc finds them in the
// configuration file the broker was started with, so a refusal names file and line.
TEST(PluginOptions, RefusalsNameTheLineOfMosquittoConf) {
  const auto dir = std::filesystem::temp_directory_path() / ("fleetmcp-options-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "conf.d");
  const std::string conf = (dir / "mosquitto.conf").string(), part = (dir / "conf.d" / "fleet.conf").string();
  std::ofstream(conf) << "per_listener_settings false\n"
                         "plugin /usr/lib/fleetmcp/fleetmcp_plugin.so\n"
                         "plugin_opt_ca_file " << kReadable << "\n"
                         "  plugin_opt_loopback_port 1884\n"
                         "include_dir " << (dir / "conf.d").string() << "\n";
  std::ofstream(part) << "# more options\nplugin_opt_loopback_port 1885\nplugin_opt_ca_fille x\n";
  const auto lines = plugin_opt_lines(conf);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1].key, "loopback_port");
  EXPECT_EQ(lines[1].source.describe(), conf + ":4");
  EXPECT_EQ(lines[3].source.describe(), part + ":3");

  auto given = minimal();
  given.push_back({"loopback_port", "1885"});
  EXPECT_EQ(parse_plugin_options(plugin_option_set_at(given, lines, conf)).error().message,
            part + ":2: plugin_opt_loopback_port: given twice");
  given = minimal();
  given[3].second = "0";
  EXPECT_EQ(parse_plugin_options(plugin_option_set_at(given, lines, conf)).error().message,
            conf + ":4: plugin_opt_loopback_port: '0' is not an integer from 1 to 65535");
  given = minimal();
  given.push_back({"ca_fille", "x"});
  EXPECT_EQ(parse_plugin_options(plugin_option_set_at(given, lines, conf)).error().message,
            part + ":3: plugin_opt_ca_fille: unknown option");
  given.pop_back();
  given.erase(given.begin() + 2);  // acl_file: on no line, so the file is named
  EXPECT_EQ(parse_plugin_options(plugin_option_set_at(given, lines, conf)).error().message,
            conf + ": plugin_opt_acl_file: is required");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fleetmcp::plugin
