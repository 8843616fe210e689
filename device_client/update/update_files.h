// The two files a self-update of fleetmcp-device goes through (docs/device-client.md, "Self-update"):
//   update-request  in the node's state directory (/var/lib/fleetmcp, the unit's StateDirectory=),
//                   written by the node: which channel, which version ("" = the channel's newest),
//                   followed by the `pending` state's fields with a fresh request_id. It is also the
//                   node's record of the request until root's state answers that request_id.
//   update-state    in root's directory (/var/lib/fleetmcp-update), written only by the packaged
//                   fleetmcp-update script (run as root by fleetmcp-update.service): running, then
//                   succeeded or failed, with the request_id it read. The node only reads it there:
//                   root writes nothing in the node's directory, so no link the node plants is
//                   followed by root (docs/threat-model.md).
// Both are `key=value` lines (split at the first '=', no comments, no quoting), a format a POSIX
// shell script writes and reads without a JSON tool. The node process that answers `manage.server get` after the update is
// a new one: the state file is what carries the outcome across the restart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/base/result.h"

namespace fleetmcp::device {

inline constexpr std::string_view kUpdateRequestFile = "update-request";
inline constexpr std::string_view kUpdateStateFile = "update-state";

struct UpdateRequest {
  std::string channel;         // stable | beta (the input schema's enum)
  std::string target_version;  // x.y.z, or "" for the channel's newest
};

struct UpdateState {
  std::string status;  // pending | running | succeeded | failed (schema common_status)
  int64_t started_at_ms = 0;
  int64_t finished_at_ms = 0;  // 0 while pending or running
  std::string message;
  // Set by the script when it fails before installing anything: the Doc 05 reason the call answers
  // with (not_found: the channel has no such version). "" otherwise.
  std::string reason;
  std::string old_version, new_version;  // "" when not known yet
  // The node's id of the request (a lowercase ULID); the script copies it from the request, ""
  // when it could not read one.
  std::string request_id;
};

// Whether `status` is one the schema's common_status allows.
bool is_update_status(std::string_view status);
// pending or running: an update is under way.
bool update_in_progress(std::string_view status);

std::string format_update_request(const UpdateRequest& request);
std::string format_update_state(const UpdateState& state);
// E_INTERNAL naming `file` when a line is malformed or the status is not one of the four.
Result<UpdateState> parse_update_state(std::string_view text, std::string_view file);

// Writes `text` to dir/name through a temporary file in `dir` and a rename, so a reader sees the
// old file or the new one, never half of one. E_INTERNAL naming the file on failure.
Status replace_file(const std::string& dir, std::string_view name, std::string_view text);
// The state in dir/name (update-state, or the pending state in update-request): nullopt when the
// file does not exist (no update ever asked for); E_INTERNAL when it is unreadable or malformed.
Result<std::optional<UpdateState>> read_update_state(const std::string& dir, std::string_view name);

}  // namespace fleetmcp::device
