// manage.server invoke (Doc 05 §8.2 update_server) as a self-update of the fleetmcp-device package
// through apt (docs/device-client.md, "Self-update"). apt must not run in this process or its
// cgroup: installing the package restarts fleetmcp-device (its postinst). So the node only writes
// the request with its `pending` state (update_files.h) and starts the packaged oneshot unit
// fleetmcp-update.service, whose script (run as root) reads the channel's apt source, resolves the
// version, installs it and records the outcome, which the restarted node reads back.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device_client/backends/service_control.h"
#include "device_client/update/update_files.h"

namespace fleetmcp::device {

inline constexpr std::string_view kDefaultUpdateStateDir = "/var/lib/fleetmcp";
inline constexpr std::string_view kDefaultUpdateOutcomeDir = "/var/lib/fleetmcp-update";
inline constexpr std::string_view kDefaultUpdateChannelsDir = "/etc/fleetmcp/update-channels";

// What one update channel offers (Doc 05 §2.6.6 check_for_updates, docs/protocol.md D45), as the
// update unit's script last read it: `fleetmcp-update --check` (root, run daily by
// fleetmcp-update-check.timer) and every update record <outcome_dir>/offer-<channel> in
// update-state's format: new_version the channel's newest fleetmcp-device, finished_at_ms when it
// was read; failed (message) when the channel could not be read. The node only reads the file.
struct ChannelOffer {
  std::string channel;               // stable | beta
  std::optional<UpdateState> check;  // nullopt: the channel has not been read yet
};

struct SelfUpdateSettings {
  std::string state_dir;     // the node's: update-request. "" (simulated backend): the state is kept in memory only
  std::string outcome_dir;   // root's: update-state, which the script writes and the node only reads
  std::string channels_dir;  // "" (simulated backend): every channel counts as configured
  // How long start() waits for the script to resolve the version (leave `pending`), so that a
  // version the channel lacks answers the call itself with not_found. Kept under the call's deadline.
  int64_t resolve_wait_ms = 0;
};

class SelfUpdate {
 public:
  SelfUpdate(std::unique_ptr<ServiceControl> unit, SelfUpdateSettings settings);

  // The channel's apt source: <channels_dir>/<channel>.sources (docs/catalogue.md).
  std::string channel_source(std::string_view channel) const;

  // Refuses (failed_precondition) a channel without a source and a second update while one runs;
  // otherwise records `pending`, starts the unit and waits up to resolve_wait_ms for the script.
  // not_found when the script reports the channel lacks the version; the state otherwise (pending
  // when the script has not answered in time, running, or failed).
  Result<UpdateState> start(const UpdateRequest& request, std::string_view current_version);

  // The last update's state (the files outlive the process), nullopt if none: the node's request
  // (pending) until root's update-state carries its request_id, then root's state. A request that
  // does not parse (an older node's, which had no pending fields) is no record.
  // E_INTERNAL on a damaged update-state.
  Result<std::optional<UpdateState>> last();

  // Each channel with an apt source and what it offered when last read (ChannelOffer). Starts
  // nothing and needs no root: checking without installing. Empty with the simulated backend.
  // E_INTERNAL on a damaged offer file.
  Result<std::vector<ChannelOffer>> offers() const;

 private:
  const std::unique_ptr<ServiceControl> unit_;
  const SelfUpdateSettings settings_;
  std::optional<UpdateState> memory_;  // state_dir == ""
};

}  // namespace fleetmcp::device
