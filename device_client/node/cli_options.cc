#include "device_client/node/cli_options.h"

#include <charconv>
#include <string_view>
#include <vector>

#include "common/base/error.h"
#include "device_client/node/device_config.h"

namespace fleetmcp::device {
namespace {

[[noreturn]] void usage_error(const std::string& what) {
  throw Error(ErrorCode::kBadRequest, what, "run fleetmcp-device --help");
}

int64_t to_int(std::string_view flag, std::string_view text, int64_t min, int64_t max) {
  int64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < min || v > max) {
    usage_error(std::string(flag) + " needs an integer between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return v;
}

// Walks argv, accepting both "--flag value" and "--flag=value".
class ArgReader {
 public:
  ArgReader(int argc, const char* const* argv) : args_(argv + 1, argv + argc) {}
  bool done() const { return i_ >= args_.size(); }
  std::string_view next_flag() {
    std::string_view a = args_[i_++];
    has_inline_value_ = false;
    if (const auto eq = a.find('='); a.substr(0, 2) == "--" && eq != std::string_view::npos) {
      inline_value_ = std::string(a.substr(eq + 1));
      has_inline_value_ = true;
      a = a.substr(0, eq);
    }
    return a;
  }
  std::string value(std::string_view flag) {
    if (has_inline_value_) return inline_value_;
    if (done()) usage_error(std::string(flag) + " needs a value");
    return args_[i_++];
  }

 private:
  std::vector<std::string> args_;
  size_t i_ = 0;
  std::string inline_value_;  // of "--flag=value"
  bool has_inline_value_ = false;
};

}  // namespace

CliOptions parse_cli(int argc, const char* const* argv) {
  CliOptions o;
  ArgReader args(argc, argv);
  while (!args.done()) {
    const std::string_view flag = args.next_flag();
    if (flag == "--help" || flag == "-h") o.help = true;
    else if (flag == "--version") o.version = true;
    else if (flag == "--check-config") o.check_config = true;
    else if (flag == "--deregister") o.deregister = true;
    else if (flag == "--test-hooks") o.test_hooks = true;
    else if (flag == "--catalogue") o.catalogue = true;
    else if (flag == "--config" || flag == "-c") o.config = args.value(flag);
    else if (flag == "--bundle-dir") o.bundle_dir = args.value(flag);
    else if (flag == "--schemas") o.schema_dir = args.value(flag);
    else if (flag == "--simulate") o.simulate = static_cast<int>(to_int(flag, args.value(flag), 1, 100'000));
    else if (flag == "--workers") o.workers = static_cast<size_t>(to_int(flag, args.value(flag), 1, 256));
    else if (flag == "--log-level") {
      const std::string level = args.value(flag);
      const auto parsed = log_level_from_name(level);
      if (!parsed) usage_error("--log-level must be debug, info, warn or error");
      o.log_level = *parsed;
    } else {
      usage_error("unknown option '" + ascii_clamp(flag, 64) + "'");
    }
  }
  if (o.simulate > 0 && o.bundle_dir.empty()) usage_error("--simulate needs --bundle-dir DIR");
  if (o.simulate == 0 && !o.bundle_dir.empty()) usage_error("--bundle-dir is only used with --simulate N");
  if (o.simulate > 0 && !o.config.empty()) usage_error("--config and --simulate exclude each other");
  if (o.catalogue && o.simulate == 0) usage_error("--catalogue is only used with --simulate N");
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
      --test-hooks     TESTS ONLY: system.echo sleeps for messages "sleep:<ms>"
      --version        print the version and exit
  -h, --help           this text

Exit status: 0 success, 1 configuration or runtime error, 2 usage error.
)";
}

}  // namespace fleetmcp::device
