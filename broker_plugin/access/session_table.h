// The connected clients the plugin has identified, by the broker's client handle. mosquitto 2.0
// has no CONNECT event: agents and the waker are recorded at BASIC_AUTH, nodes (whose TLS
// identity skips BASIC_AUTH) at their first ACL check. Broker thread only.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "broker_plugin/access/client_identity.h"
#include "broker_plugin/access/principal.h"

namespace fleetmcp::plugin {

struct Session {
  std::string client_id;
  std::optional<Principal> principal;  // nullopt: identity refused, every check denies
  std::optional<IdentityRefusal> refusal;  // why, when a certificate was refused
  // MOSQ_EVT_DISCONNECT arrived. mosquitto sends the Will after that event (context.c), so a
  // WRITE check on an ended session is the Will. Ended sessions are dropped on the next tick.
  bool ended = false;
  bool kick_queued = false;
  bool rejected_sent = false;
};

class SessionTable {
 public:
  // The session of `handle`, if it was recorded for the same client id. A handle is a pointer the
  // broker may reuse for a later connection; the id check keeps a stale record from applying.
  Session* find(const void* handle, std::string_view client_id);
  Session& put(const void* handle, Session session);
  // Marks the session ended; returns it (or nullptr when unknown).
  Session* end(const void* handle);
  void drop_ended();
  void for_each(const std::function<void(const void* handle, Session&)>& visit);

 private:
  std::unordered_map<const void*, Session> sessions_;
  std::vector<const void*> ended_;
};

}  // namespace fleetmcp::plugin
