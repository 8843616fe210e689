#include "device_client/node/cli_options.h"

#include <string_view>
#include <vector>

#include "common/base/options.h"
#include "device_client/config/device_config.h"

namespace fleetmcp::device {
namespace {

constexpr std::string_view kHelp = "run fleetmcp-device --help";

template <bool CliOptions::*flag>
Status set_flag(CliOptions& o, const Option&) {
  o.*flag = true;
  return {};
}

template <std::string CliOptions::*field>
Status set_text(CliOptions& o, const Option& v) {
  o.*field = v.value;
  return {};
}

constexpr OptionRule<CliOptions> kRules[] = {
    {"help", set_flag<&CliOptions::help>},
    {"version", set_flag<&CliOptions::version>},
    {"check-config", set_flag<&CliOptions::check_config>},
    {"deregister", set_flag<&CliOptions::deregister>},
    {"test-hooks", set_flag<&CliOptions::test_hooks>},
    {"catalogue", set_flag<&CliOptions::catalogue>},
    {"wait-for-time-sync", set_flag<&CliOptions::wait_for_time_sync>},
    {"config", set_text<&CliOptions::config>},
    {"bundle-dir", set_text<&CliOptions::bundle_dir>},
    {"schemas", set_text<&CliOptions::schema_dir>},
    {"simulate", [](CliOptions& o, const Option& v) { return assign(o.simulate, v.integer(1, 100'000)); }},
    {"workers", [](CliOptions& o, const Option& v) { return assign(o.workers, v.integer(1, 256)); }},
    {"log-level", [](CliOptions& o, const Option& v) {
       const auto level = log_level_from_name(v.value);
       if (!level) return Status(v.error("must be debug, info, warn or error", kHelp));
       o.log_level = *level;
       return Status();
     }},
};

const CommandLineSpec kSpec{
    .valued = {"config", "bundle-dir", "schemas", "simulate", "workers", "log-level"},
    .switches = {"version", "check-config", "deregister", "test-hooks", "catalogue", "wait-for-time-sync"},
    .short_names = {{"-c", "config"}},
    .positionals = false,
    .unknown_fix = kHelp,
};

ErrorEnvelope usage_error(std::string_view what) { return ErrorEnvelope(ErrorCode::kBadRequest, what, kHelp); }

}  // namespace

Result<CliOptions> parse_cli(int argc, const char* const* argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  auto line = read_command_line(args, kSpec, 1);
  if (!line) return std::move(line).error();
  CliOptions o;
  if (Status read = line->options.read<CliOptions>(kRules, o, kHelp); !read) return std::move(read).error();
  if (o.simulate > 0 && o.bundle_dir.empty()) return usage_error("--simulate needs --bundle-dir DIR");
  if (o.simulate == 0 && !o.bundle_dir.empty()) return usage_error("--bundle-dir is only used with --simulate N");
  if (o.simulate > 0 && !o.config.empty()) return usage_error("--config and --simulate exclude each other");
  if (o.catalogue && o.simulate == 0) return usage_error("--catalogue is only used with --simulate N");
  if (o.config.empty()) o.config = std::string(kDefaultConfigPath);
  return o;
}

std::string usage_text() {
  return R"(usage: fleetmcp-device [--config FILE] [options]
       fleetmcp-device --simulate N --bundle-dir DIR [options]

Runs a fleetmcp node: connects to the broker over MQTT 5 + mutual TLS, publishes its signed
capability manifest on $devices/<node_id>/announce, answers cmds and publishes telemetry.

  -c, --config FILE    node configuration (default /etc/fleetmcp/device.conf)
      --check-config   load and cross-check config, key, certificate, CA and schema bundle, sign a
                       manifest and validate it; print a summary and exit (0 = usable)
      --deregister     clear this node's retained announce (zero-length publish) and exit
      --simulate N     run N nodes in this process from enrolment bundles (load tests, local fleet)
      --bundle-dir DIR where --simulate finds DIR/nodes/<node_id>/device.conf (or DIR/<id>/…)
      --schemas DIR    schema bundle (default: schema_dir of the config, $FLEETMCP_SCHEMAS, or the
                       installed bundle)
      --log-level L    debug, info (default), warn or error; logs go to stderr
      --workers N      handler worker threads (default: from max_concurrency; 8 with --simulate)
      --catalogue      with --simulate: every node also offers the simulated Doc 05 catalogue
                       (GPIO, PWM, I2C, camera, services, logs …; docs/catalogue.md)
      --wait-for-time-sync
                       connect (and, with --check-config, check) only once systemd-timesyncd
                       has synchronised the clock (/run/systemd/timesync/synchronized); until
                       then say so in the log once a minute. For hosts without a real-time clock
                       (a Raspberry Pi); the packaged unit passes it (docs/pi-image.md "The clock")
      --test-hooks     TESTS ONLY: system.echo sleeps for messages "sleep:<ms>"
      --version        print the version and exit
  -h, --help           this text

Exit status: 0 success, 1 configuration or runtime error, 2 usage error.
)";
}

}  // namespace fleetmcp::device
