// What a 2026-07-28 result carries besides its method's fields: resultType "complete", and on the
// cacheable methods (server/discover, tools/list, prompts/list, resources/list,
// resources/templates/list, resources/read) the caching hints ttlMs and cacheScope: "public" for
// what is the same for every caller, "private" for what depends on the caller's tenant or scopes.
#pragma once

#include <string>
#include <string_view>

namespace fleetmcp::http {

// Stamps `response`, the JSON-RPC response rpc_result wrote for `id_json` to a request of
// `method`. An error response, or a result that already says its resultType, is left as it is.
void stamp_stateless_result(std::string& response, std::string_view id_json, std::string_view method);

}  // namespace fleetmcp::http
