// fleetmcp-device: the program that runs on each node (docs/device-client.md).
#include <malloc.h>
#include <signal.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <mqtt/async_client.h>

#include "common/base/error.h"
#include "device_client/node/bundle_dir.h"
#include "device_client/node/cli_options.h"
#include "device_client/node/device_fleet.h"
#include "device_client/node/service_notifier.h"
#include "device_client/node/time_sync_wait.h"
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

// systemd-timesyncd creates it once it has synchronised the clock in this boot (on /run, a tmpfs:
// gone at the next boot).
constexpr const char* kTimeSynchronizedFile = "/run/systemd/timesync/synchronized";

// What --wait-for-time-sync waits for. (Not the kernel's STA_UNSYNC flag, which chrony and ntpd
// clear too: adjtimex is in the @clock system calls the unit's ProtectClock= kills the node for.)
bool clock_synchronized() {
  std::error_code ec;
  return std::filesystem::exists(kTimeSynchronizedFile, ec);
}

// --wait-for-time-sync, before the fleet is built: loading a node checks its certificate's
// validity period against the clock, which is not to be trusted yet (node/time_sync_wait.h).
// Looks once a second; each turn of this loop is a WATCHDOG=1. False when SIGINT/SIGTERM came
// first (the process then exits without ever connecting).
bool wait_for_time_sync() {
  fd::ServiceNotifier notifier;
  fd::TimeSyncWait wait(std::chrono::seconds(60));
  const sigset_t set = shutdown_signals();
  const timespec one_second{1, 0};
  for (;;) {
    notifier.ready_and_alive();
    const auto now = fd::TimeSyncWait::Clock::now();
    const std::string waited = std::to_string(wait.waited(now).count());
    switch (wait.look(clock_synchronized(), now)) {
      case fd::TimeSyncWait::Step::kConnect:
        fd::log_info("", "clock.synchronized", "connecting after waiting " + waited + " s for the clock");
        return true;
      case fd::TimeSyncWait::Step::kSayWaiting: {
        const std::string why = "the clock is not synchronised yet (no NTP answer so far), waited " + waited +
                                " s; the node connects once NTP answers";
        fd::log_warn("", "clock.waiting",
                     why + ". Check: timedatectl timesync-status (is an NTP server reachable?); on a host whose "
                           "clock is known good, start without --wait-for-time-sync (docs/pi-image.md \"The clock\")");
        notifier.status("waiting for the clock: " + why);
        break;
      }
      case fd::TimeSyncWait::Step::kKeepWaiting:
        break;
    }
    if (sigtimedwait(&set, nullptr, &one_second) > 0) return false;
  }
}

fd::FleetOptions fleet_options(const fd::CliOptions& cli) {
  fd::FleetOptions o;
  o.simulated = cli.simulate > 0;
  o.test_hooks = cli.test_hooks;
  o.catalogue = cli.catalogue;
  o.schema_dir = cli.schema_dir;
  o.workers = cli.workers;
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
  // --check-config waits too: it judges the certificate's dates by the clock (fleetmcp-enrol-boot
  // runs it at a Pi's first boot, before NTP may have answered).
  if (cli.wait_for_time_sync && !cli.deregister && !wait_for_time_sync()) {
    fd::log_info("", "shutdown", "signal while waiting for the clock");
    return 0;
  }
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
