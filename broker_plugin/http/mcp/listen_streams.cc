#include "broker_plugin/http/mcp/listen_streams.h"

#include <vector>

#include "broker_plugin/http/base/jsonrpc.h"
#include "common/base/json.h"

namespace fleetmcp::http {
namespace {

// A notification on the stream of listen `id_json`: `params` plus the _meta naming the listen.
std::string stamped(std::string_view method, std::string_view id_json, json::Document params) {
  auto& a = params.GetAllocator();
  json::Value meta(rapidjson::kObjectType);
  json::Document id;
  id.Parse(id_json.data(), id_json.size());  // our own text of a JSON-RPC id
  meta.AddMember("io.modelcontextprotocol/subscriptionId", json::Value(id, a), a);
  params.AddMember("_meta", meta, a);
  return rpc_notification(method, &params);
}

}  // namespace

void ListenStreams::add(std::shared_ptr<McpSession> session, std::string id_json, ListenFilter filter) {
  json::Document params(rapidjson::kObjectType);
  auto& a = params.GetAllocator();
  json::Value honoured(rapidjson::kObjectType);
  if (filter.tools) honoured.AddMember("toolsListChanged", true, a);
  params.AddMember("notifications", honoured, a);
  session->notify(stamped("notifications/subscriptions/acknowledged", id_json, std::move(params)));
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(by_tenant_, [](const auto& entry) { return !entry.second.session->streaming(); });  // ended streams
  const std::string tenant = session->tenant();
  by_tenant_.emplace(tenant, Listen{std::move(session), std::move(id_json), filter});
}

size_t ListenStreams::fleet_changed(const std::string& tenant) {
  std::vector<Listen> told;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(by_tenant_, [](const auto& entry) { return !entry.second.session->streaming(); });  // ended streams
    const auto [first, last] = by_tenant_.equal_range(tenant);
    for (auto it = first; it != last; ++it) told.push_back(it->second);
  }
  size_t sent = 0;
  for (const Listen& listen : told) {
    if (!listen.filter.tools) continue;
    listen.session->notify(stamped("notifications/tools/list_changed", listen.id_json, json::Document(rapidjson::kObjectType)));
    ++sent;
  }
  return sent;
}

void ListenStreams::end_all() {
  std::multimap<std::string, Listen> ending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ending.swap(by_tenant_);
  }
  for (auto& [tenant, listen] : ending) listen.session->end(SessionEnd::kShutdown);
}

}  // namespace fleetmcp::http
