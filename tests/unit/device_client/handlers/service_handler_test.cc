// The service handler's readers on recorded `systemctl show --timestamp=unix` output
// (tests/fixtures/catalogue/): properties to status, dependent services.
#include <gtest/gtest.h>

#include "common/base/file_text.h"
#include "device_client/backends/service_control.h"
#include "device_client/handlers/service_handler.h"
#include "tests/support/device_client/catalogue_fixtures.h"

namespace fleetmcp::device {
namespace {

using testing::expect_valid;
using testing::kFixtures;

TEST(CatalogueServices, SystemctlShowPropertiesToStatus) {
  const uint64_t now_us = 1763800600ull * 1'000'000;  // ten minutes after ActiveEnterTimestamp
  ServiceStatus s =
      service_status_from(parse_systemctl_show(read_file(kFixtures + "/systemctl_show_nginx.txt").value()), now_us).value();
  EXPECT_EQ(s.name, "nginx.service");
  EXPECT_EQ(s.status, "active");
  EXPECT_EQ(s.sub_status, "running");
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.pid, 812);
  EXPECT_EQ(s.memory_bytes, 9568256u);
  EXPECT_EQ(s.uptime_seconds, 600);
  EXPECT_EQ(s.restart_count, 2);
  EXPECT_TRUE(s.can_reload);
  expect_valid("service.unit.get.output@1.1.0", service_status_json(s));
  EXPECT_EQ(s.preset, "enabled");
  EXPECT_EQ(s.restart_policy, "no");

  s = service_status_from(parse_systemctl_show(read_file(kFixtures + "/systemctl_show_stopped.txt").value()), now_us).value();
  EXPECT_EQ(s.status, "inactive");
  EXPECT_FALSE(s.enabled);
  EXPECT_FALSE(s.memory_bytes);   // "[not set]"
  EXPECT_FALSE(s.uptime_seconds);
  const json::Document d = service_status_json(s);
  expect_valid("service.unit.get.output@1.1.0", d);
  EXPECT_FALSE(d.HasMember("pid"));
  EXPECT_FALSE(d.HasMember("user"));  // User= empty: systemd runs it as root
  EXPECT_STREQ(d["restart_policy"].GetString(), "on-failure");

  const auto missing =
      service_status_from(parse_systemctl_show(read_file(kFixtures + "/systemctl_show_missing.txt").value()), now_us);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kBadRequest);
  EXPECT_EQ(missing.error().message, "not_found: systemd has no unit nosuch.service");
}

// D35 leaves out the configuration that may hold secrets (ExecStart, Environment); the rest of
// addendum §2.1/§2.2 is served: the vendor preset, the account, the directory, the restart policy.
TEST(CatalogueServices, ConfigurationWithoutSecretsIsServed) {
  UnitProperties p = parse_systemctl_show(read_file(kFixtures + "/systemctl_show_nginx.txt").value());
  p["User"] = "www-data";
  p["Group"] = "www-data";
  p["WorkingDirectory"] = "/var/www";
  p["Restart"] = "always";
  p["ExecStart"] = "{ path=/usr/sbin/nginx ; argv[]=/usr/sbin/nginx --password=hunter2 }";
  p["Environment"] = "API_KEY=secret";
  const json::Document d = service_status_json(service_status_from(p, 1763800600ull * 1'000'000).value());
  expect_valid("service.unit.get.output@1.1.0", d);
  EXPECT_STREQ(d["preset"].GetString(), "enabled");
  EXPECT_STREQ(d["user"].GetString(), "www-data");
  EXPECT_STREQ(d["group"].GetString(), "www-data");
  EXPECT_STREQ(d["working_directory"].GetString(), "/var/www");
  EXPECT_STREQ(d["restart_policy"].GetString(), "always");
  EXPECT_EQ(json::to_string(d).find("hunter2"), std::string::npos);
  EXPECT_EQ(json::to_string(d).find("secret"), std::string::npos);
}

// Doc 05 addendum §6.1: the services that need a unit, from the properties systemctl show (and the
// sd-bus backend) give: RequiredBy, BoundBy and WantedBy, services only, each once, sorted.
TEST(CatalogueServices, DependentServicesFromUnitProperties) {
  const UnitProperties p = parse_systemctl_show(read_file(kFixtures + "/systemctl_show_dependents.txt").value());
  EXPECT_EQ(dependent_service_names(p),
            (std::vector<std::string>{"NetworkManager.service", "avahi-daemon.service", "bluetooth.service",
                                      "systemd-logind.service"}));
  EXPECT_TRUE(dependent_service_names(parse_systemctl_show(read_file(kFixtures + "/systemctl_show_nginx.txt").value()))
                  .empty());
  for (const char* state : {"active", "reloading", "activating"}) EXPECT_TRUE(is_running_state(state)) << state;
  for (const char* state : {"inactive", "failed", "deactivating", ""}) EXPECT_FALSE(is_running_state(state)) << state;
}

}  // namespace
}  // namespace fleetmcp::device
