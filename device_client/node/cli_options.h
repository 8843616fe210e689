// fleetmcp-device's command line (docs/device-client.md).
#pragma once

#include <cstddef>
#include <string>

#include "common/base/result.h"
#include "device_client/session/event_log.h"

namespace fleetmcp::device {

struct CliOptions {
  std::string config;  // --config, default /etc/fleetmcp/device.conf
  bool help = false, version = false, check_config = false, deregister = false;
  int simulate = 0;         // --simulate N
  std::string bundle_dir;   // --bundle-dir DIR (with --simulate)
  std::string schema_dir;   // --schemas DIR
  EventLogLevel log_level = EventLogLevel::kInfo;
  size_t workers = 0;       // --workers N
  bool test_hooks = false;  // --test-hooks (tests only)
  bool catalogue = false;   // --catalogue (with --simulate): the simulated Doc 05 catalogue
  bool wait_for_time_sync = false;  // --wait-for-time-sync (node/time_sync_wait.h)
};

// A kBadRequest naming the argument for anything malformed ("command line argument 2: --workers:
// 'x' is not an integer from 1 to 256"); main() prints it with the usage and exits 2.
Result<CliOptions> parse_cli(int argc, const char* const* argv);
std::string usage_text();

}  // namespace fleetmcp::device
