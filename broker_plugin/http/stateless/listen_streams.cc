#include "broker_plugin/http/stateless/listen_streams.h"

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

void ListenStreams::add(std::shared_ptr<ListenSink> sink, std::string id_json, ListenFilter filter) {
  json::Document params(rapidjson::kObjectType);
  auto& a = params.GetAllocator();
  json::Value honoured(rapidjson::kObjectType);
  if (filter.tools) honoured.AddMember("toolsListChanged", true, a);
  if (filter.resources) honoured.AddMember("resourcesListChanged", true, a);
  params.AddMember("notifications", honoured, a);
  sink->notify(stamped("notifications/subscriptions/acknowledged", id_json, std::move(params)));
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(by_tenant_, [](const auto& entry) { return !entry.second.sink->streaming(); });  // ended streams
  const std::string tenant = sink->tenant();
  by_tenant_.emplace(tenant, Listen{std::move(sink), std::move(id_json), filter});
}

size_t ListenStreams::tell(const std::string& tenant, bool ListenFilter::*asked, std::string_view method) {
  std::vector<Listen> told;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(by_tenant_, [](const auto& entry) { return !entry.second.sink->streaming(); });  // ended streams
    const auto [first, last] = by_tenant_.equal_range(tenant);
    for (auto it = first; it != last; ++it) {
      if (it->second.filter.*asked) told.push_back(it->second);
    }
  }
  for (const Listen& listen : told) {
    listen.sink->notify(stamped(method, listen.id_json, json::Document(rapidjson::kObjectType)));
  }
  return told.size();
}

void ListenStreams::end_all() {
  std::multimap<std::string, Listen> ending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ending.swap(by_tenant_);
  }
  for (auto& [tenant, listen] : ending) listen.sink->end_stream();
}

}  // namespace fleetmcp::http
