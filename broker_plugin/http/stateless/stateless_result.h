// What a 2026-07-28 result carries besides its method's fields: resultType "complete", and on the
// cacheable methods (server/discover, tools/list, prompts/list, resources/list,
// resources/templates/list, resources/read) the caching hints ttlMs and cacheScope: "public" for
// what is the same for every caller, "private" for what depends on the caller's tenant or scopes.
#pragma once

#include <string>
#include <string_view>

#include "broker_plugin/http/base/jsonrpc.h"

namespace fleetmcp::http {

// The caching hints the result of request `m` carries (JSON object members with a leading comma;
// empty for a method whose results are not kept). A static text: it outlives the request's
// document, so it can be taken before the answer comes.
std::string_view stateless_cache_hints(const RpcMessage& m);

// Stamps `response`, the JSON-RPC response rpc_result wrote for `id_json`, with resultType
// "complete" and `hints` (stateless_cache_hints). An error response, or a result that already
// says its resultType, is left as it is.
void stamp_stateless_result(std::string& response, std::string_view id_json, std::string_view hints);

}  // namespace fleetmcp::http
