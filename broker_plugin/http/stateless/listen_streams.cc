#include "broker_plugin/http/stateless/listen_streams.h"

#include <vector>

#include "broker_plugin/http/base/jsonrpc.h"
#include "common/base/json.h"

namespace fleetmcp::http {
namespace {

// `object` plus the _meta naming listen `id_json` (added to a _meta it has).
void stamp(json::Document& object, std::string_view id_json) {
  auto& a = object.GetAllocator();
  json::Document id;
  id.Parse(id_json.data(), id_json.size());  // our own text of a JSON-RPC id
  json::Value* meta = object.HasMember("_meta") && object["_meta"].IsObject() ? &object["_meta"] : nullptr;
  if (meta == nullptr) meta = &object.AddMember("_meta", json::Value(rapidjson::kObjectType), a)["_meta"];
  meta->AddMember("io.modelcontextprotocol/subscriptionId", json::Value(id, a), a);
}

}  // namespace

std::string ListenStreams::notification(std::string_view method, std::string_view id_json, json::Document params) {
  if (!id_json.empty()) stamp(params, id_json);
  return rpc_notification(method, &params);
}

void ListenStreams::add(std::shared_ptr<ListenSink> sink, std::string id_json, ListenFilter filter) {
  json::Document params(rapidjson::kObjectType);
  auto& a = params.GetAllocator();
  json::Value honoured(rapidjson::kObjectType);
  if (filter.tools) honoured.AddMember("toolsListChanged", true, a);
  if (filter.resources) honoured.AddMember("resourcesListChanged", true, a);
  if (!filter.resource_uris.empty()) {
    json::Value uris(rapidjson::kArrayType);
    for (const std::string& uri : filter.resource_uris) uris.PushBack(json::string_value(uri, a), a);
    honoured.AddMember("resourceSubscriptions", uris, a);
  }
  params.AddMember("notifications", honoured, a);
  sink->notify(notification("notifications/subscriptions/acknowledged", id_json, std::move(params)));
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
    listen.sink->notify(notification(method, listen.id_json, json::Document(rapidjson::kObjectType)));
  }
  return told.size();
}

std::string ListenStreams::ended(std::string_view id_json) {
  json::Document result(rapidjson::kObjectType);
  result.AddMember("resultType", "complete", result.GetAllocator());
  stamp(result, id_json);
  return rpc_result(id_json, result);
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
