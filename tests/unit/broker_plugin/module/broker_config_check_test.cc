// The check of the broker's mosquitto.conf: the settings the plugin needs, and the file found on
// mosquitto's command line.
#include <gtest/gtest.h>

#include "broker_plugin/module/broker_config_check.h"

namespace fleetmcp::plugin {
namespace {

TEST(BrokerConfigCheck, AcceptsTheRequiredSettings) {
  EXPECT_TRUE(check_broker_config_text("per_listener_settings false\ncheck_retain_source true\n"
                                       "set_tcp_nodelay true\nlistener 1883\n")
                  .empty());
  // per_listener_settings defaults to false.
  EXPECT_TRUE(check_broker_config_text("check_retain_source true\nset_tcp_nodelay true\n").empty());
}

TEST(BrokerConfigCheck, NamesEachMissingOrWrongSetting) {
  const auto problems = check_broker_config_text("# check_retain_source true\nper_listener_settings true\n");
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].setting, "per_listener_settings");
  EXPECT_EQ(problems[1].setting, "check_retain_source");
  EXPECT_EQ(problems[2].setting, "set_tcp_nodelay");
  // The last occurrence wins, as in mosquitto.
  EXPECT_EQ(check_broker_config_text("check_retain_source true\nset_tcp_nodelay true\ncheck_retain_source false\n")
                .size(),
            1u);
}

// Issue 24: without max_packet_size mosquitto allocates what any packet announces (up to 256 MiB),
// before authentication. A warning, not a refusal: configurations that ran before keep running.
TEST(BrokerConfigCheck, WarnsWithoutAPacketSizeLimit) {
  const std::string required = "check_retain_source true\nset_tcp_nodelay true\n";
  const auto warnings = broker_config_warnings(required);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].setting, "max_packet_size");
  EXPECT_NE(warnings[0].message.find("max_packet_size 266240"), std::string::npos);
  EXPECT_EQ(broker_config_warnings(required + "max_packet_size 0\n").size(), 1u);
  EXPECT_TRUE(broker_config_warnings(required + "max_packet_size 266240\n").empty());
  EXPECT_TRUE(check_broker_config_text(required).empty());  // never a refusal
}

TEST(BrokerConfigCheck, ReadsPersistentClientExpirationAsMosquittoDoes) {
  EXPECT_EQ(persistent_client_expiration_s("persistent_client_expiration 7d\n"), 7 * 86400);
  EXPECT_EQ(persistent_client_expiration_s("persistent_client_expiration 2h\n"), 2 * 3600);
  EXPECT_EQ(persistent_client_expiration_s("persistent_client_expiration 1w\n"), 7 * 86400);
  EXPECT_EQ(persistent_client_expiration_s("persistent_client_expiration 1y\n"), 365 * 86400);
  EXPECT_FALSE(persistent_client_expiration_s("persistence true\n"));
  EXPECT_FALSE(persistent_client_expiration_s("persistent_client_expiration 7s\n"));  // mosquitto refuses it
  EXPECT_FALSE(persistent_client_expiration_s("#persistent_client_expiration 7d\n"));
}

TEST(BrokerConfigCheck, FindsTheConfigFileOnTheCommandLine) {
  using namespace std::string_literals;
  EXPECT_EQ(config_path_from_cmdline("mosquitto\0-v\0-c\0/etc/m.conf\0"s), "/etc/m.conf");
  EXPECT_EQ(config_path_from_cmdline("mosquitto\0--config-file\0a.conf"s), "a.conf");
  EXPECT_FALSE(config_path_from_cmdline("mosquitto\0-v\0"s));
}

}  // namespace
}  // namespace fleetmcp::plugin
