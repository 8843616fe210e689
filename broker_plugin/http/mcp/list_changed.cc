#include "broker_plugin/http/mcp/list_changed.h"

#include <set>

#include "broker_plugin/http/base/jsonrpc.h"

namespace fleetmcp::http {

ListChangedNotifier::ListChangedNotifier(FleetView& fleet, McpSessions& sessions, ListenStreams& listens, Digest digest)
    : fleet_(fleet), sessions_(sessions), listens_(listens), digest_(std::move(digest)) {
  const auto snapshot = fleet_.snapshot();
  for (const std::string& tenant : snapshot->tenants()) digests_[tenant] = digest_(*snapshot, tenant);
}

size_t ListChangedNotifier::on_fleet_change() {
  const auto snapshot = fleet_.snapshot();
  std::set<std::string> changed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::set<std::string> tenants;
    for (const auto& [tenant, digest] : digests_) tenants.insert(tenant);
    for (const std::string& tenant : snapshot->tenants()) tenants.insert(tenant);
    for (const std::string& tenant : tenants) {
      const std::string now = digest_(*snapshot, tenant);
      std::string& seen = digests_[tenant];
      if (seen != now) changed.insert(tenant);
      seen = now;
    }
  }
  static const std::string kMessage = rpc_notification("notifications/tools/list_changed", nullptr);
  size_t told = 0;
  for (const std::string& tenant : changed) {
    for (const auto& session : sessions_.of_tenant(tenant)) {
      session->notify(kMessage);
      ++told;
    }
    told += listens_.fleet_changed(tenant);
  }
  return told;
}

}  // namespace fleetmcp::http
