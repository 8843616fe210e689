#include "broker_plugin/http/mcp/list_changed.h"

#include <set>

#include "broker_plugin/http/base/jsonrpc.h"

namespace fleetmcp::http {

ListChangedNotifier::ListChangedNotifier(FleetView& fleet, McpSessions& sessions, ListenStreams& listens, Digest tools,
                                         Digest resources)
    : fleet_(fleet), sessions_(sessions), listens_(listens), tools_(std::move(tools)), resources_(std::move(resources)) {
  const auto snapshot = fleet_.snapshot();
  for (const std::string& tenant : snapshot->tenants()) seen_[tenant] = digests(*snapshot, tenant);
}

ListChangedNotifier::Lists ListChangedNotifier::digests(const FleetSnapshot& fleet, std::string_view tenant) const {
  return Lists{tools_(fleet, tenant), resources_(fleet, tenant)};
}

size_t ListChangedNotifier::on_fleet_change() {
  const auto snapshot = fleet_.snapshot();
  std::set<std::string> tools, resources;  // the tenants whose lists changed
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::set<std::string> tenants;
    for (const auto& [tenant, lists] : seen_) tenants.insert(tenant);
    for (const std::string& tenant : snapshot->tenants()) tenants.insert(tenant);
    for (const std::string& tenant : tenants) {
      Lists now = digests(*snapshot, tenant);
      Lists& seen = seen_[tenant];
      if (seen.tools != now.tools) tools.insert(tenant);
      if (seen.resources != now.resources) resources.insert(tenant);
      seen = std::move(now);
    }
  }
  static const std::string kMessage = rpc_notification("notifications/tools/list_changed", nullptr);
  size_t told = 0;
  for (const std::string& tenant : tools) {
    for (const auto& session : sessions_.of_tenant(tenant)) {
      session->notify(kMessage);
      ++told;
    }
    told += listens_.tools_changed(tenant);
  }
  for (const std::string& tenant : resources) told += listens_.resources_changed(tenant);
  return told;
}

}  // namespace fleetmcp::http
