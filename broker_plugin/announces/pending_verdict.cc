#include "broker_plugin/announces/pending_verdict.h"

#include "common/crypto/digest.h"

namespace fleetmcp::plugin {

void PendingVerdict::hold(const void* connection, CheckedAnnounce checked) {
  connection_ = connection;
  held_ = std::move(checked);
}

std::optional<CheckedAnnounce> PendingVerdict::take(const void* connection, std::string_view payload) {
  std::optional<CheckedAnnounce> held = std::move(held_);
  held_.reset();
  // The summary's payload_digest is the BLAKE3 of the bytes the check verified.
  if (!held || connection != connection_ || held->accepted.manifest->payload_digest != blake3_256(payload)) {
    return std::nullopt;
  }
  return held;
}

}  // namespace fleetmcp::plugin
