// device.conf parsing (docs/CONTRIBUTING.md "Device configuration format"): the file fleetctl pki
// enroll writes is accepted as is, and every mistake is reported with file, line and key.
#include <gtest/gtest.h>

#include <string>

#include "common/base/config_file.h"
#include "common/base/error.h"
#include "device_client/config/device_config.h"

namespace fleetmcp::device {
namespace {

const std::string kEnrolled =
    "# fleetmcp device configuration, written by fleetctl pki enroll\n"
    "node_id = 01jd3x4m5n6p7q8r9s0t1v2w3x\n"
    "tenant = acme\n"
    "broker = mqtts://127.0.0.1:8883\n"
    "key = node.key\n"
    "cert = node.crt\n"
    "ca = /etc/fleetmcp/ca.crt\n"
    "telemetry_interval_ms = 5000\n"
    "manifest_ttl_s = 3600   # at most 86400\n"
    "capability.echo = system.echo rate_limit_rps=10 max_concurrency=4 deadline_ms_default=2000\n"
    "capability.metrics = system.metrics rate_limit_rps=5 max_concurrency=2 deadline_ms_default=2000\n";

DeviceConfig parse(const std::string& text) {
  return parse_device_config(parse_config_text(text, "/etc/fleetmcp/device.conf").value(), "/etc/fleetmcp/device.conf",
                             "/etc/fleetmcp");
}

// The message a user sees for `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadRequest);
    return e.envelope().message;
  }
  return "";
}

std::string replace_line(std::string text, const std::string& key, const std::string& line) {
  const auto at = text.find("\n" + key + " ");
  EXPECT_NE(at, std::string::npos) << key;
  const auto end = text.find('\n', at + 1);
  return text.replace(at + 1, end - at - 1, line);
}

TEST(DeviceConfig, AcceptsWhatEnrolWrites) {
  const DeviceConfig c = parse(kEnrolled);
  EXPECT_EQ(c.node_id, "01jd3x4m5n6p7q8r9s0t1v2w3x");
  EXPECT_EQ(c.tenant, "acme");
  EXPECT_EQ(c.broker_uri, "mqtts://127.0.0.1:8883");
  EXPECT_EQ(c.paho_uri, "ssl://127.0.0.1:8883");
  EXPECT_EQ(c.key_file, "/etc/fleetmcp/node.key");  // relative to the config's directory
  EXPECT_EQ(c.ca_file, "/etc/fleetmcp/ca.crt");
  EXPECT_EQ(c.telemetry_interval_ms, 5000);
  EXPECT_EQ(c.manifest_ttl_s, 3600);
  ASSERT_EQ(c.capabilities.size(), 2u);
  EXPECT_EQ(c.capabilities[0].cap_id, "echo");
  EXPECT_EQ(c.capabilities[0].kind, "system.echo");
  EXPECT_EQ(c.capabilities[0].constraints.max_concurrency, 4);
  EXPECT_EQ(c.capabilities[1].cap_id, "metrics");
  EXPECT_DOUBLE_EQ(c.capabilities[1].constraints.rate_limit_rps, 5);
  EXPECT_EQ(c.capabilities[1].constraints.deadline_ms_default, 2000);
}

TEST(DeviceConfig, HostnameAndNodeLabelsForTheManifest) {
  EXPECT_EQ(parse(kEnrolled).hostname, "");  // the host's own name is announced
  EXPECT_TRUE(parse(kEnrolled).labels.empty());
  const DeviceConfig c = parse(kEnrolled + "hostname = pi-door\nlabels = site=lab,door\n");
  EXPECT_EQ(c.hostname, "pi-door");
  EXPECT_EQ(c.labels, (std::vector<std::string>{"site=lab", "door"}));
}

TEST(DeviceConfig, DefaultsWhenOptionalKeysAreAbsent) {
  std::string text = kEnrolled;
  text = replace_line(text, "telemetry_interval_ms", "# none");
  text = replace_line(text, "manifest_ttl_s", "# none");
  text = replace_line(text, "capability.echo", "capability.echo = system.echo");
  const DeviceConfig c = parse(text);
  EXPECT_EQ(c.telemetry_interval_ms, 5000);
  EXPECT_EQ(c.manifest_ttl_s, 3600);
  EXPECT_DOUBLE_EQ(c.capabilities[0].constraints.rate_limit_rps, 10);  // RFC-0005 §9 nominal
  EXPECT_EQ(c.capabilities[0].constraints.max_concurrency, 1);          // RFC-0001 default
  EXPECT_EQ(c.capabilities[0].constraints.deadline_ms_default, 2000);
}

// One mistake per row: the line of kEnrolled that starts with `key` becomes `line` (no key: `line` is
// added at the end), and the user reads `message`, which names the file, the line and the key.
struct Mistake {
  const char* key;
  const char* line;
  const char* message;
};

const Mistake kMistakes[] = {
    {"tenant", "# no tenant", "/etc/fleetmcp/device.conf: tenant: required key is missing"},
    {"node_id", "node_id = 01JD3X4M5N6P7Q8R9S0T1V2W3X",
     "/etc/fleetmcp/device.conf:2: node_id: must be a lowercase 26-character ULID"},
    {"manifest_ttl_s", "manifest_ttl_s = 90000",
     "/etc/fleetmcp/device.conf:9: manifest_ttl_s: '90000' is not an integer from 4 to 86400"},
    {"telemetry_interval_ms", "telemetry_interval_ms = fast",
     "/etc/fleetmcp/device.conf:8: telemetry_interval_ms: 'fast' is not an integer from 1000 to 3600000"},
    {nullptr, "colour = blue", "/etc/fleetmcp/device.conf:12: colour: unknown key (see docs/device-client.md for the keys)"},
    {nullptr, "tenant = other", "/etc/fleetmcp/device.conf:12: tenant: given twice; keep one"},
    // A device connects only over mutual TLS.
    {"broker", "broker = mqtt://127.0.0.1:1883",
     "/etc/fleetmcp/device.conf:4: broker: must be an mqtts:// URI: a device connects only over mutual TLS "
     "(docs/protocol.md section 2)"},
    {"broker", "broker = mqtts://broker:99999",
     "/etc/fleetmcp/device.conf:4: broker.port: '99999' is not an integer from 1 to 65535"},
    // A capability line's errors name the token.
    {"capability.echo", "capability.echo = system.echo max_concurrency=0",
     "/etc/fleetmcp/device.conf:10: capability.echo.max_concurrency: '0' is not an integer from 1 to 1024"},
    {"capability.echo", "capability.echo = system.echo fast",
     "/etc/fleetmcp/device.conf:10: capability.echo: expected name=value after the kind, got a bare word"},
    {"capability.echo", "capability.Echo = system.echo",
     "/etc/fleetmcp/device.conf:10: capability.Echo: cap_id must match ^[a-z][a-z0-9_]{0,17}$ (RFC-0001 "
     "section 3)"},
    {"capability.echo", "capability.echo =",
     "/etc/fleetmcp/device.conf:10: capability.echo: expected '<kind> [name=value ...]', e.g. 'system.echo "
     "max_concurrency=4'"},
    // What the manifest tells people (manifest@1.4.0) is checked here, not refused by the broker.
    {nullptr, "hostname = pi_4", "/etc/fleetmcp/device.conf:12: hostname: must be a host name such as pi-kitchen or pi4.lab.example"},
    {nullptr, "labels = door,door", "/etc/fleetmcp/device.conf:12: labels: label door is given twice"},
    {nullptr, "labels = front door",
     "/etc/fleetmcp/device.conf:12: labels: each label is 1-63 letters, digits or ._:=/- starting with a letter or digit"},
};

TEST(DeviceConfig, EachMistakeNamesFileLineAndKey) {
  for (const Mistake& m : kMistakes) {
    const std::string text = m.key ? replace_line(kEnrolled, m.key, m.line) : kEnrolled + m.line + "\n";
    EXPECT_EQ(error_of(text), m.message) << m.line;
  }
}

TEST(DeviceConfig, NoCapabilityIsAnError) {
  std::string text = replace_line(kEnrolled, "capability.echo", "#");
  text = replace_line(text, "capability.metrics", "#");
  EXPECT_EQ(error_of(text), "/etc/fleetmcp/device.conf: capability.<cap_id>: required key is missing");
}

TEST(DeviceConfig, BrokerUriBecomesThePahoUri) {
  EXPECT_EQ(parse(replace_line(kEnrolled, "broker", "broker = mqtts://fleet.example")).paho_uri,
            "ssl://fleet.example:8883");
  EXPECT_EQ(parse(replace_line(kEnrolled, "broker", "broker = mqtts://[::1]:8884")).paho_uri, "ssl://[::1]:8884");
}

TEST(DeviceConfig, CapabilityKeepsItsOwnSettingsForTheHandler) {
  const DeviceConfig c =
      parse(replace_line(kEnrolled, "capability.echo", "capability.echo = system.echo pins=17,27 max_concurrency=2"));
  ASSERT_EQ(c.capabilities[0].settings.size(), 1u);
  EXPECT_EQ(c.capabilities[0].settings[0].key, "pins");
  EXPECT_EQ(c.capabilities[0].settings[0].value, "17,27");
  EXPECT_EQ(c.capabilities[0].constraints.max_concurrency, 2);
}

TEST(DeviceConfig, UnreadableFileIsNamed) {
  try {
    load_device_config("/nonexistent/device.conf");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.envelope().message.find("/nonexistent/device.conf"), std::string::npos) << e.envelope().message;
  }
}

}  // namespace
}  // namespace fleetmcp::device
