#include "broker_plugin/http/stateless/stateless_result.h"

#include "broker_plugin/http/streams/metrics_uri.h"

namespace fleetmcp::http {

// How long a client may keep a list. A client without a subscriptions/listen stream learns
// of a node that came or went only by asking again: the lists that follow the fleet stay short.
std::string_view stateless_cache_hints(const RpcMessage& m) {
  const std::string_view method = m.method;
  // The prompts, the resource templates and the server's description are the same for every caller
  // (the configured tools mode decides them).
  if (method == "server/discover" || method == "prompts/list" || method == "resources/templates/list") {
    return R"(,"ttlMs":300000,"cacheScope":"public")";
  }
  // A node's metrics resource is a fresh sample at each read: immediately stale.
  if (method == "resources/read" && m.params != nullptr && m.params->IsObject() &&
      is_metrics_uri(json::get_string(*m.params, "uri").value_or(""))) {
    return R"(,"ttlMs":0,"cacheScope":"private")";
  }
  // Filtered by the caller's tenant (and scopes, for tools): its own.
  if (method == "tools/list" || method == "resources/list" || method == "resources/read") {
    return R"(,"ttlMs":5000,"cacheScope":"private")";
  }
  return {};
}

void stamp_stateless_result(std::string& response, std::string_view id_json, std::string_view hints) {
  constexpr std::string_view kComplete = R"("resultType":"complete")";
  if (result_object(response, id_json).starts_with(R"({"resultType")")) return;  // input_required says its own
  if (hints.empty()) {  // tools/call and the rest: nothing to join
    prepend_result_members(response, id_json, kComplete);
    return;
  }
  std::string members;
  members.reserve(kComplete.size() + hints.size());
  members.append(kComplete).append(hints);
  prepend_result_members(response, id_json, members);
}

}  // namespace fleetmcp::http
