// notifications/tools/list_changed (docs/protocol.md §7): whenever the FleetView reports a change, the
// tools each tenant would list are compared with what they were; the sessions of tenants whose
// list changed (a manifest appeared, changed, expired or was revoked) get the notification on
// their GET stream, and its 2026-07-28 listen streams theirs. Other tenants hear nothing, not even that something changed. What counts as a
// change is the mode's digest: per_node the snapshot's tools_digest; by_kind the (kind, verb) set
// and what its tools describe (KindTools::digest); compact the tenant's kinds, fleet_find_nodes'
// kind enum (CompactTools::digest). The resources a tenant may list (its nodes:
// NodeResources::list_digest) are compared the same way; their changes go to the listen streams
// that asked (notifications/resources/list_changed; 2025 sessions are offered resource
// subscriptions instead).
#pragma once

#include <map>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/stateless/listen_streams.h"
#include "broker_plugin/http/mcp/mcp_session.h"

namespace fleetmcp::http {

class ListChangedNotifier {
 public:
  using Digest = std::function<std::string(const FleetSnapshot&, std::string_view tenant)>;
  ListChangedNotifier(FleetView& fleet, McpSessions& sessions, ListenStreams& listens, Digest tools, Digest resources);
  // Any thread. Returns how many sessions and 2026-07-28 listen streams were told.
  size_t on_fleet_change();

 private:
  FleetView& fleet_;
  McpSessions& sessions_;
  ListenStreams& listens_;
  // The digests of what a tenant lists, and the last seen of each, by tenant.
  struct Lists {
    std::string tools, resources;
  };
  Lists digests(const FleetSnapshot& fleet, std::string_view tenant) const;
  Digest tools_, resources_;
  std::mutex mutex_;
  std::map<std::string, Lists> seen_;
};

}  // namespace fleetmcp::http
