// notifications/tools/list_changed (DESIGN §7): whenever the FleetView reports a change, the
// tools each tenant would list are compared with what they were; the sessions of tenants whose
// list changed (a manifest appeared, changed, expired or was revoked) get the notification on
// their GET stream. Other tenants hear nothing, not even that something changed. In compact mode
// the list is three fixed tools and never changes.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "broker_plugin/http/fleet_view.h"
#include "broker_plugin/http/mcp_session.h"

namespace fleetmcp::http {

class ListChangedNotifier {
 public:
  ListChangedNotifier(FleetView& fleet, McpSessions& sessions);
  // Any thread. Returns how many sessions were told.
  size_t on_fleet_change();

 private:
  FleetView& fleet_;
  McpSessions& sessions_;
  std::mutex mutex_;
  std::map<std::string, std::string> digests_;  // tenant -> tools_digest last seen
};

}  // namespace fleetmcp::http
