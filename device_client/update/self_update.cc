#include "device_client/update/self_update.h"

#include <chrono>
#include <thread>
#include <unistd.h>

#include "common/ids/ulid.h"
#include "device_client/base/catalogue_error.h"

namespace fleetmcp::device {

SelfUpdate::SelfUpdate(std::unique_ptr<ServiceControl> unit, SelfUpdateSettings settings)
    : unit_(std::move(unit)), settings_(std::move(settings)) {}

std::string SelfUpdate::channel_source(std::string_view channel) const {
  return settings_.channels_dir + "/" + std::string(channel) + ".sources";
}

Result<std::optional<UpdateState>> SelfUpdate::last() {
  if (settings_.state_dir.empty()) return memory_;
  auto outcome = read_update_state(settings_.outcome_dir, kUpdateStateFile);
  if (!outcome) return outcome;
  const auto request = read_update_state(settings_.state_dir, kUpdateRequestFile);
  if (request && *request && (!*outcome || (*outcome)->request_id != (*request)->request_id)) return *request;
  return outcome;
}

Result<std::vector<ChannelOffer>> SelfUpdate::offers() const {
  std::vector<ChannelOffer> out;
  if (settings_.outcome_dir.empty()) return out;
  for (const std::string_view channel : {"stable", "beta"}) {  // the invoke input schema's channels
    if (access(channel_source(channel).c_str(), R_OK) != 0) continue;
    auto check = read_update_state(settings_.outcome_dir, "offer-" + std::string(channel));
    if (!check) return check.error();
    out.push_back(ChannelOffer{std::string(channel), std::move(*check)});
  }
  return out;
}

Result<UpdateState> SelfUpdate::start(const UpdateRequest& request, std::string_view current_version) {
  if (!settings_.channels_dir.empty() && access(channel_source(request.channel).c_str(), R_OK) != 0) {
    return failed_precondition("update channel " + request.channel + " has no apt source on this device",
                               "the device operator writes " + channel_source(request.channel) +
                                   " (a deb822 apt source for fleetmcp-device, docs/catalogue.md)");
  }
  const auto previous = last();
  if (!previous) return previous.error();
  if (*previous && update_in_progress((*previous)->status)) {
    const auto unit = unit_->status();
    if (!unit) return unit.error();
    if (is_running_state(unit->status)) {
      return failed_precondition("an update of fleetmcp-device is already under way",
                                 "wait for it: manage.server get reports last_update");
    }
  }
  UpdateState state;
  state.status = "pending";
  state.started_at_ms = now_ms();
  state.message = "update to " + (request.target_version.empty() ? "the newest version" : request.target_version) +
                  " of channel " + request.channel + " queued";
  state.old_version = std::string(current_version);
  state.request_id = new_node_id();  // a lowercase ULID: what the script copies is [0-9a-z]
  if (settings_.state_dir.empty()) {
    memory_ = state;
  } else {
    const Status written =
        replace_file(settings_.state_dir, kUpdateRequestFile, format_update_request(request) + format_update_state(state));
    if (!written) return written.error();
  }
  if (Status started = unit_->act("start"); !started) return started.error();
  if (settings_.state_dir.empty()) return state;

  // The script resolves the version against the channel's index first: wait for that, briefly.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(settings_.resolve_wait_ms);
  while (true) {
    const auto now = last();
    if (!now) return now.error();
    if (*now && (*now)->status != "pending") {
      if ((*now)->status == "failed" && (*now)->reason == "not_found") {
        return not_found("channel " + request.channel + " has no fleetmcp-device " +
                             (request.target_version.empty() ? "package" : request.target_version),
                         "list the channel's versions (apt-cache madison fleetmcp-device) or omit target_version");
      }
      return **now;
    }
    if (std::chrono::steady_clock::now() >= until) return now->value_or(state);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace fleetmcp::device
