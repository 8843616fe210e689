// fleetmcp-device: the program that runs on each node (docs/device-client.md).
#include <malloc.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <mqtt/async_client.h>

#include "common/base/error.h"
#include "device_client/node/bundle_dir.h"
#include "device_client/node/cli_options.h"
#include "device_client/node/device_fleet.h"
#include "device_client/session/event_log.h"

namespace fd = fleetmcp::device;

namespace {

// SIGINT/SIGTERM are blocked in every thread (set before any is created) and taken here with
// sigwait, so shutdown runs on the main thread in plain code, not in a signal handler.
sigset_t shutdown_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

void prepare_process() {
  // glibc gives each thread its own malloc arena; on a Pi Zero that is megabytes of RSS for
  // nothing. Two arenas are plenty for a few handler threads and Paho's two.
  mallopt(M_ARENA_MAX, 2);
  // A broker that vanishes mid-write must not kill the process: the write fails and Paho reconnects.
  signal(SIGPIPE, SIG_IGN);
  const sigset_t set = shutdown_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int wait_for_shutdown_signal() {
  const sigset_t set = shutdown_signals();
  int sig = 0;
  sigwait(&set, &sig);
  return sig;
}

fd::FleetOptions fleet_options(const fd::CliOptions& cli) {
  fd::FleetOptions o;
  o.simulated = cli.simulate > 0;
  o.test_hooks = cli.test_hooks;
  o.catalogue = cli.catalogue;
  o.schema_dir = cli.schema_dir;
  o.workers = cli.workers;
  o.wait_for_time_sync = cli.wait_for_time_sync;
  if (o.simulated) {
    o.config_files = fd::find_bundle_configs(cli.bundle_dir);
    if (static_cast<int>(o.config_files.size()) < cli.simulate) {
      throw fleetmcp::Error(fleetmcp::ErrorCode::kBadRequest,
                            cli.bundle_dir + ": holds " + std::to_string(o.config_files.size()) +
                                " bundles, --simulate asks for " + std::to_string(cli.simulate),
                            "enrol more nodes: fleetctl pki enroll --dir <dir> --count <n>");
    }
    o.config_files.resize(static_cast<size_t>(cli.simulate));
  } else {
    o.config_files = {cli.config};
  }
  return o;
}

void print_check(const fd::DeviceFleet& fleet) {
  for (const auto& node : fleet.nodes()) {
    const auto announce = node->sign_announce();
    std::cout << "ok: " << node->config().file << ": node " << node->node_id() << ", tenant "
              << node->config().tenant << ", " << node->tool_count() << " tools, manifest etag "
              << announce.etag << "\n";
  }
}

int run(const fd::CliOptions& cli) {
  fd::DeviceFleet fleet(fleet_options(cli));
  if (cli.check_config) {
    print_check(fleet);
    return 0;
  }
  if (cli.deregister) return fleet.deregister() ? 0 : 1;
  fleet.start();
  const int sig = wait_for_shutdown_signal();
  fd::log_info("", "shutdown", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  if (!fleet.stop()) {
    fd::log_warn("", "shutdown.handler_stuck", "a handler outlived the grace period; exiting anyway");
    std::fflush(stderr);
    std::_Exit(0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  prepare_process();
  const auto parsed = fd::parse_cli(argc, argv);
  if (!parsed) {
    std::cerr << "fleetmcp-device: " << parsed.error().message << "\n" << fd::usage_text();
    return 2;
  }
  const fd::CliOptions& cli = *parsed;
  if (cli.help) {
    std::cout << fd::usage_text();
    return 0;
  }
  if (cli.version) {
    std::cout << "fleetmcp-device " << FLEETMCP_VERSION << " (" << mqtt::VERSION_STR << ")\n";
    return 0;
  }
  fd::set_log_level(cli.log_level);
  // main() is the outermost boundary: what reaches it is shown as the envelope says.
  try {
    return run(cli);
  } catch (const fleetmcp::Error& e) {
    const auto& env = e.envelope();
    std::cerr << "fleetmcp-device: " << fleetmcp::error_code_name(env.code) << ": " << env.message
              << "\n  fix: " << env.suggested_fix << "\n";
  } catch (const std::exception& e) {
    std::cerr << "fleetmcp-device: " << e.what() << "\n";
  }
  return 1;
}
