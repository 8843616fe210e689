#include "device_client/node/time_sync_wait.h"

namespace fleetmcp::device {

TimeSyncWait::Step TimeSyncWait::look(bool synchronized, Clock::time_point now) {
  if (synchronized) return Step::kConnect;
  if (!first_look_) first_look_ = now;
  if (said_at_ && now - *said_at_ < remind_every_) return Step::kKeepWaiting;
  said_at_ = now;
  return Step::kSayWaiting;
}

std::chrono::seconds TimeSyncWait::waited(Clock::time_point now) const {
  if (!first_look_) return std::chrono::seconds(0);
  return std::chrono::duration_cast<std::chrono::seconds>(now - *first_look_);
}

}  // namespace fleetmcp::device
