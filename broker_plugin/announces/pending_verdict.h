// The verdict on the announce being published right now, carried from its ACL WRITE check to its
// MESSAGE event, so docs/protocol.md §6.1's checks run once per announce.
//
// mosquitto 2.0.11 handles one PUBLISH in one call: the ACL WRITE check, then the MESSAGE
// callbacks, before the message is stored (docs/platform-notes.md §M4); on the broker thread
// nothing runs between the two. But a check need not be followed by its MESSAGE (a Will; another
// plugin's MESSAGE callback refusing the publish first), and another plugin's MESSAGE callback may
// replace the payload. So the verdict held here is tied to the connection and to the exact bytes
// it was reached on (a copy, compared whole: cheaper than hashing them again); the next MESSAGE
// takes it whether it matches or not; the next check replaces it, and the tick and a new
// revocation list drop it. A MESSAGE that finds nothing has its announce verified again. Broker
// thread only.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "broker_plugin/announces/announce_verifier.h"

namespace fleetmcp::plugin {

// An accepted announce with the certificate it was checked against.
struct CheckedAnnounce {
  AcceptedAnnounce accepted;
  std::shared_ptr<const Certificate> certificate;
};

class PendingVerdict {
 public:
  // `connection`: the publishing client's handle (ClientView::handle); `payload`: the bytes checked.
  void hold(const void* connection, std::string_view payload, CheckedAnnounce checked);
  // What was held for this connection and exactly these bytes, if anything; empty afterwards.
  std::optional<CheckedAnnounce> take(const void* connection, std::string_view payload);
  void drop() { held_.reset(); }

 private:
  const void* connection_ = nullptr;
  std::string payload_;  // its buffer is reused from one announce to the next
  std::optional<CheckedAnnounce> held_;
};

}  // namespace fleetmcp::plugin
