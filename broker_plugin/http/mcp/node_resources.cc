#include "broker_plugin/http/mcp/node_resources.h"

#include "broker_plugin/http/surface/compact_tools.h"
#include "broker_plugin/http/streams/metrics_uri.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kPrefix = "fleetmcp://nodes/";
constexpr std::string_view kSuffix = "/manifest";
constexpr std::string_view kCursorContext = "resources/list";

json::Value str(std::string_view s, json::Allocator& a) { return json::string_value(s, a); }

std::string uri_of(std::string_view node_id) { return std::string(kPrefix) + std::string(node_id) + std::string(kSuffix); }

std::optional<std::string_view> node_of(std::string_view uri) {
  if (!uri.starts_with(kPrefix) || !uri.ends_with(kSuffix)) return std::nullopt;
  return uri.substr(kPrefix.size(), uri.size() - kPrefix.size() - kSuffix.size());
}

const FleetNode* visible(const FleetSnapshot& fleet, std::string_view tenant, std::string_view uri) {
  const auto id = node_of(uri);
  return id ? fleet.node(tenant, *id) : nullptr;
}

// What the resource shows; subscribers are told when it changes.
json::Document view(const FleetNode& node) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("node_id", str(node.node_id, a), a);
  d.AddMember("state", str(node_state_name(node.state), a), a);
  d.AddMember("manifest_etag", str(node.manifest_etag, a), a);
  d.AddMember("manifest_expires_at_ms", node.manifest_expires_at_ms, a);
  json::Value caps(rapidjson::kArrayType);
  for (const FleetTool& t : node.tools) {
    json::Value* cap = &capability_entry(caps, t, a);
    (*cap)["verbs"].PushBack(str(t.name.verb, a), a);
  }
  d.AddMember("capabilities", caps, a);
  return d;
}

json::Value resource(const FleetNode& node, json::Allocator& a) {
  json::Value r(rapidjson::kObjectType);
  r.AddMember("uri", str(uri_of(node.node_id), a), a);
  r.AddMember("name", str("manifest of node " + node.node_id, a), a);
  r.AddMember("mimeType", "application/json", a);
  return r;
}

}  // namespace

std::string NodeResources::list_digest(const FleetSnapshot& fleet, std::string_view tenant) {
  std::string ids;
  for (const FleetNode* node : fleet.nodes(tenant)) ids.append(node->node_id).push_back(' ');
  return ids;
}

json::Document NodeResources::templates_result() const {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value t(rapidjson::kObjectType), list(rapidjson::kArrayType);
  t.AddMember("uriTemplate", str(kNodeResourceTemplate, a), a);
  t.AddMember("name", "node manifest", a);
  t.AddMember("description", "The verified capability manifest of one of your nodes (fleet_find_nodes lists them).", a);
  t.AddMember("mimeType", "application/json", a);
  list.PushBack(t, a);
  json::Value photo(rapidjson::kObjectType);
  photo.AddMember("uriTemplate", str(kPhotoResourceTemplate, a), a);
  photo.AddMember("name", "photo", a);
  photo.AddMember("description", "A photo a camera tool took on one of your nodes, linked from its result for 15 minutes.", a);
  photo.AddMember("mimeType", "image/jpeg", a);
  list.PushBack(photo, a);
  json::Value metrics(rapidjson::kObjectType);  // served by McpMethods through the fan-out (metrics_uri.h)
  metrics.AddMember("uriTemplate", str(kMetricsResourceTemplate, a), a);
  metrics.AddMember("name", "node metrics", a);
  metrics.AddMember("description",
                    "The system metrics of one of your nodes that has a system.metrics capability: read one sample, or "
                    "subscribe (subscriptions/listen resourceSubscriptions) for one every interval_ms (1000 to 60000, "
                    "default 5000) as notifications/resources/updated carrying the sample in _meta[\"io.fleetmcp/sample\"]. "
                    "include: a comma-separated subset of cpu,mem,load,uptime,disk (default all).",
                    a);
  metrics.AddMember("mimeType", "application/json", a);
  list.PushBack(metrics, a);
  d.AddMember("resourceTemplates", list, a);
  return d;
}

std::optional<json::Document> NodeResources::list_result(const FleetSnapshot& fleet, std::string_view tenant,
                                                         const std::optional<std::string>& cursor) const {
  std::string after;
  if (cursor) {
    const auto decoded = cursors_.decode(kCursorContext, *cursor);
    if (!decoded) return std::nullopt;
    after = *decoded;
  }
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value list(rapidjson::kArrayType);
  std::string last;
  bool more = false;
  for (const FleetNode* node : fleet.nodes(tenant)) {  // node_id order
    if (!after.empty() && node->node_id <= after) continue;
    if (list.Size() == page_size_) {
      more = true;
      break;
    }
    list.PushBack(resource(*node, a), a);
    last = node->node_id;
  }
  d.AddMember("resources", list, a);
  if (more) d.AddMember("nextCursor", str(cursors_.encode(kCursorContext, last), a), a);
  return d;
}

std::optional<json::Document> NodeResources::read_result(const FleetSnapshot& fleet, std::string_view tenant,
                                                         std::string_view uri) {
  if (PhotoStore::is_photo_uri(uri)) return photos_.read_result(tenant, uri);
  const FleetNode* node = visible(fleet, tenant, uri);
  if (node == nullptr) return std::nullopt;
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value content(rapidjson::kObjectType), contents(rapidjson::kArrayType);
  content.AddMember("uri", str(uri, a), a);
  content.AddMember("mimeType", "application/json", a);
  content.AddMember("text", str(json::to_string(view(*node)), a), a);
  contents.PushBack(content, a);
  d.AddMember("contents", contents, a);
  return d;
}

bool NodeResources::has(const FleetSnapshot& fleet, std::string_view tenant, std::string_view uri) {
  return visible(fleet, tenant, uri) != nullptr;
}

bool NodeResources::subscribe(const FleetSnapshot& fleet, const std::shared_ptr<McpSession>& session,
                              std::string_view uri, std::string listen_id) {
  const FleetNode* node = visible(fleet, session->tenant(), uri);
  if (node == nullptr) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(subscriptions_, [](const auto& s) { return s.second.session.expired(); });  // ended sessions
  subscriptions_[{session.get(), std::string(uri)}] = Subscription{
      session, session->tenant(), node->node_id, std::string(uri), json::to_string(view(*node)), std::move(listen_id)};
  return true;
}

void NodeResources::unsubscribe(const McpSession& session, std::string_view uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  subscriptions_.erase({&session, std::string(uri)});
}

size_t NodeResources::on_fleet_change(const FleetSnapshot& fleet) {
  std::vector<std::pair<std::shared_ptr<McpSession>, Subscription>> told;  // copies: told unlocked
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [key, s] : subscriptions_) {
      const auto session = s.session.lock();
      if (!session) continue;
      const FleetNode* node = fleet.node(s.tenant, s.node_id);
      const std::string now = node ? json::to_string(view(*node)) : std::string("gone");
      if (now == s.seen) continue;
      s.seen = now;
      told.emplace_back(session, s);
    }
  }
  for (const auto& [session, s] : told) {
    json::Document params(rapidjson::kObjectType);
    params.AddMember("uri", str(s.uri, params.GetAllocator()), params.GetAllocator());
    constexpr std::string_view kUpdated = "notifications/resources/updated";
    session->notify(ListenStreams::notification(kUpdated, s.listen_id, std::move(params)));
  }
  return told.size();
}

}  // namespace fleetmcp::http
