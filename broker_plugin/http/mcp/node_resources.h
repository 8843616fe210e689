// Node manifests as MCP resources (issue 14 part 5). Each node of the caller's tenant is a
// resource `fleetmcp://nodes/{node_id}/manifest` (also offered as a URI template): a JSON view of
// its verified manifest as the broker holds it (state, manifest ETag and expiry, capabilities with
// kind, safety class, verbs and constraints). Not the signed bytes: the front sees the registry
// through FleetView, which keeps the verified content, not the wire document.
//
// resources/subscribe on such a URI (or a 2026-07-28 subscriptions/listen naming it in
// resourceSubscriptions) sends `notifications/resources/updated` on the session's GET stream (the
// listen stream) whenever what the view shows changes: a re-announce (new ETag), expiry, revocation, the
// node going offline or online. A node of another tenant is "Resource not found" (-32002), exactly
// like a node that does not exist; subscriptions never reach other tenants.
//
// The photos a camera.still call brought are resources too, for a while (photo_store.h):
// `fleetmcp://nodes/{node_id}/photos/{photo_id}`, offered as a template, read like the manifests.
// So is a node's metrics (streams/metrics_uri.h), offered here as a template; its reads and
// subscriptions are calls of the node's system.metrics tools, which McpMethods makes.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/surface/list_cursor.h"
#include "broker_plugin/http/mcp/mcp_session.h"
#include "broker_plugin/http/mcp/photo_store.h"

namespace fleetmcp::http {

inline constexpr std::string_view kNodeResourceTemplate = "fleetmcp://nodes/{node_id}/manifest";

class NodeResources {
 public:
  explicit NodeResources(const CursorCodec& cursors, size_t page_size) : cursors_(cursors), page_size_(page_size) {}

  // The photos kept for resources/read (photo_store.h).
  PhotoStore& photos() { return photos_; }

  json::Document templates_result() const;
  // What resources/list shows `tenant` (its nodes), as text that changes when the list does
  // (list_changed.h).
  static std::string list_digest(const FleetSnapshot& fleet, std::string_view tenant);
  // nullopt: a cursor that is not ours.
  std::optional<json::Document> list_result(const FleetSnapshot& fleet, std::string_view tenant,
                                            const std::optional<std::string>& cursor) const;
  // nullopt: no such resource for this tenant.
  std::optional<json::Document> read_result(const FleetSnapshot& fleet, std::string_view tenant, std::string_view uri);

  // Whether `uri` names a resource `tenant` may subscribe to.
  static bool has(const FleetSnapshot& fleet, std::string_view tenant, std::string_view uri);
  // False when the URI names no resource of the session's tenant. `listen_id`: the JSON-RPC id of
  // the 2026-07-28 subscriptions/listen whose stream the session is, which its notifications
  // name (listen_streams.h); empty for a 2025 session.
  bool subscribe(const FleetSnapshot& fleet, const std::shared_ptr<McpSession>& session, std::string_view uri,
                 std::string listen_id = {});
  void unsubscribe(const McpSession& session, std::string_view uri);
  // After every fleet change (background thread): notifies the subscribers of changed nodes.
  size_t on_fleet_change(const FleetSnapshot& fleet);

 private:
  struct Subscription {
    std::weak_ptr<McpSession> session;
    std::string tenant, node_id, uri, seen;  // seen: the node's fingerprint when last told
    std::string listen_id;
  };
  const CursorCodec& cursors_;
  size_t page_size_;
  PhotoStore photos_{[] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }};
  std::mutex mutex_;
  // By (session, uri): the session object, as a listen stream's has no id.
  std::map<std::pair<const McpSession*, std::string>, Subscription> subscriptions_;
};

}  // namespace fleetmcp::http
