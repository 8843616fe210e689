// The front's options (plugin_opt_http_*).
#include <gtest/gtest.h>

#include "broker_plugin/http/base/front_options.h"
#include <unistd.h>

#include <filesystem>

#include "tests/support/front_fixture.h"
#include "tests/support/test_files.h"

namespace fleetmcp::http {
namespace {

using std::chrono::milliseconds;

TEST(FrontOptions, ParsesHttpKeysAndNamesTheBadOne) {
  const auto o = parse_front_options(front_option_set({{"http_listen", "[::1]:0"}, {"http_tool_names", "dashed"}, {"ca_file", "x"},
                                      {"http_sse_idle_timeout_ms", "1500"}})).value();
  EXPECT_EQ(o.listen_host, "::1");
  EXPECT_EQ(o.listen_port, 0);
  EXPECT_EQ(o.tool_names, ToolNameStyle::kDashed);
  EXPECT_EQ(o.sse_idle_timeout, milliseconds(1500));
  EXPECT_EQ(resource_url(o, 4321), "http://[::1]:4321/mcp");
  EXPECT_EQ(o.read_timeout, milliseconds(60000));  // the default
  EXPECT_EQ(o.tools_mode, ToolsMode::kByKind);      // the default, as mosquitto.conf ships it (docs/protocol.md D26)
  EXPECT_EQ(o.page_size, 100u);
  EXPECT_EQ(parse_front_options(front_option_set({{"http_read_timeout_ms", "1500"}})).value().read_timeout, milliseconds(1500));
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_read_timeout_ms", "99"}})).ok());  // below 100 ms
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_read_timeout_ms", "1s"}})).ok());
  const auto page = parse_front_options(front_option_set({{"http_page_size", "0"}}));
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().message, "plugin_opt_http_page_size: '0' is not an integer from 1 to 1000");
  // With the lines of mosquitto.conf, the refusal names the file and line (plugin_entry.cc).
  OptionSet at_lines("plugin_opt_", "/etc/mosquitto/mosquitto.conf");
  at_lines.add("http_listen", "127.0.0.1:8080", {"/etc/mosquitto/mosquitto.conf", 41});
  at_lines.add("http_max_connections", "0", {"/etc/mosquitto/mosquitto.conf", 42});
  EXPECT_EQ(parse_front_options(at_lines).error().message,
            "/etc/mosquitto/mosquitto.conf:42: plugin_opt_http_max_connections: '0' is not an integer from 1 to 1000000");
  OptionSet no_key("plugin_opt_", "/etc/mosquitto/mosquitto.conf");
  no_key.add("http_tls_cert", std::string(FLEETMCP_SOURCE_DIR) + "/acl/fleetmcp.acl", {"/etc/mosquitto/mosquitto.conf", 7});
  EXPECT_EQ(parse_front_options(no_key).error().message,
            "/etc/mosquitto/mosquitto.conf: plugin_opt_http_tls_key: is missing");
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_nonsense", "1"}})).ok());
}

// The request-state key fronts behind one balancer share: 64 hex digits in a file; anything else
// refuses to start, naming the option.
TEST(FrontOptions, TheRequestStateKeyIsReadFromItsFile) {
  EXPECT_TRUE(parse_front_options(front_option_set({})).value().request_state_key.empty());  // a random one at start
  const auto dir = std::filesystem::temp_directory_path();
  const auto good = dir / ("fleetmcp-state-key-" + std::to_string(::getpid()));
  fleetmcp::testing::write_test_file(good, std::string(64, 'a') + "\n");
  const auto o = parse_front_options(front_option_set({{"http_request_state_key_file", good.string()}}));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o.value().request_state_key, std::string(32, '\xaa'));
  fleetmcp::testing::write_test_file(good, std::string(62, 'a'));
  const auto short_key = parse_front_options(front_option_set({{"http_request_state_key_file", good.string()}}));
  ASSERT_FALSE(short_key.ok());
  EXPECT_NE(short_key.error().message.find("plugin_opt_http_request_state_key_file"), std::string::npos);
  std::filesystem::remove(good);
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_request_state_key_file", good.string()}})).ok());  // no file
}

TEST(FrontOptions, LimitsHaveSaneDefaultsAndAreOptions) {
  const FrontOptions defaults = parse_front_options(front_option_set({})).value();
  EXPECT_EQ(defaults.max_body_bytes, 1u << 20);  // the JSON parser's limit
  EXPECT_EQ(defaults.max_connections, 512u);
  EXPECT_EQ(defaults.max_connections_per_address, 64u);
  EXPECT_EQ(defaults.max_connections_per_prefix, 128u);
  EXPECT_EQ(defaults.reserved_connections, 128u);  // a quarter of the connections
  EXPECT_EQ(defaults.max_connections_per_tenant, 128u);
  EXPECT_EQ(defaults.header_timeout, std::chrono::milliseconds(5000));
  EXPECT_EQ(defaults.max_header_bytes, 8192u);
  EXPECT_EQ(defaults.max_sessions_per_caller, 32u);
  EXPECT_EQ(defaults.max_streams_per_caller, 16u);
  EXPECT_EQ(defaults.max_batch, 32u);
  const FrontOptions o = parse_front_options(front_option_set({{"http_max_connections", "10"},
                                              {"http_max_connections_per_address", "2"},
                                              {"http_max_sessions_per_caller", "3"},
                                              {"http_max_sessions_per_tenant", "4"},
                                              {"http_max_streams_per_caller", "5"},
                                              {"http_max_streams_per_tenant", "6"},
                                              {"http_max_stream_ms", "7000"},
                                              {"http_max_batch", "8"},
                                              {"http_max_commit_tokens_per_caller", "9"},
                                              {"http_audit_refusal_interval_ms", "0"}})).value();
  EXPECT_EQ(o.max_connections, 10u);
  EXPECT_EQ(o.reserved_connections, 2u);  // a quarter of 10 unless given
  EXPECT_EQ(o.max_connections_per_tenant, 2u);
  EXPECT_EQ(o.max_connections_per_address, 2u);
  EXPECT_EQ(o.max_sessions_per_caller, 3u);
  EXPECT_EQ(o.max_sessions_per_tenant, 4u);
  EXPECT_EQ(o.max_streams_per_caller, 5u);
  EXPECT_EQ(o.max_streams_per_tenant, 6u);
  EXPECT_EQ(o.max_stream, std::chrono::milliseconds(7000));
  EXPECT_EQ(o.max_batch, 8u);
  EXPECT_EQ(o.max_commit_tokens_per_caller, 9u);
  EXPECT_EQ(o.audit_refusal_interval, std::chrono::milliseconds(0));
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_max_connections", "0"}})).ok());
  const FrontOptions shares = parse_front_options(front_option_set({{"http_max_connections", "10"},
                                                   {"http_max_connections_per_prefix", "3"},
                                                   {"http_reserved_connections", "0"},
                                                   {"http_max_connections_per_tenant", "9"},
                                                   {"http_header_timeout_ms", "1500"},
                                                   {"http_max_header_bytes", "16384"}})).value();
  EXPECT_EQ(shares.max_connections_per_prefix, 3u);
  EXPECT_EQ(shares.reserved_connections, 0u);
  EXPECT_EQ(shares.max_connections_per_tenant, 9u);
  EXPECT_EQ(shares.header_timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(shares.max_header_bytes, 16384u);
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_max_connections", "10"}, {"http_reserved_connections", "10"}})).ok());
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_max_header_bytes", "100"}})).ok());
  EXPECT_FALSE(parse_front_options(front_option_set({{"http_max_batch", "many"}})).ok());
}

}  // namespace
}  // namespace fleetmcp::http
