#include "broker_plugin/announces/pending_verdict.h"

namespace fleetmcp::plugin {

void PendingVerdict::hold(const void* connection, std::string_view payload, CheckedAnnounce checked) {
  connection_ = connection;
  payload_.assign(payload);
  held_ = std::move(checked);
}

std::optional<CheckedAnnounce> PendingVerdict::take(const void* connection, std::string_view payload) {
  std::optional<CheckedAnnounce> held = std::move(held_);
  held_.reset();
  if (!held || connection != connection_ || payload != payload_) return std::nullopt;
  return held;
}

}  // namespace fleetmcp::plugin
