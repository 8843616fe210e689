// MCP CallToolResult shapes (docs/protocol.md §9).
//  - Success: the device's result as structuredContent (2025-06-18+) and serialised in a text block.
//  - Execution error (offline, deadline, rate limit, safety, invalid arguments, device failure):
//    isError true, the RFC-0001 envelope serialised in the text block and in _meta. It is also the
//    structuredContent, except for tools that declare an outputSchema: there structuredContent must
//    match that schema (MCP 2025-06-18 "Structured Content"), and the TypeScript SDK's callTool()
//    rejects a result whose structuredContent does not, isError or not.
#pragma once

#include <string>
#include <string_view>

#include "broker_plugin/http/base/mcp_revision.h"
#include "common/base/error.h"
#include "common/base/json.h"

namespace fleetmcp::http {

inline constexpr std::string_view kErrorMetaKey = "io.fleetmcp/error";

// A resource the result links (MCP 2025-06-18 `resource_link` content), e.g. a kept photo.
struct ResourceLink {
  std::string uri, name, mime_type;
  size_t size_bytes = 0;
};

// A result with an image `preview` shows the image once, as image content: the text block carries
// the result with the preview's data_base64 replaced by a note (structuredContent keeps it, as the
// output schema requires). `link`, when given, follows as resource_link content (2025-06-18+).
json::Document tool_success(std::string_view result_json, McpRevision revision, const ResourceLink* link = nullptr);
// The JSON-RPC response to the request whose id is `id_json` (id_key's text of it) and whose
// result is tool_success(result_json): the same bytes as rpc_result(id, tool_success(...)) but
// without parsing the result again nor RapidJSON's Writer (~7 k instructions per MCP call):
// result_json is the core's json::to_string of the value it parsed and checked (CallResult),
// which is exactly how structuredContent would be written. A result with a preview is parsed as
// before (its image block needs the values).
std::string rpc_tool_success(std::string_view id_json, std::string_view result_json, McpRevision revision);
json::Document tool_success(const json::Value& structured, std::string_view text, McpRevision revision);
json::Document tool_error(const ErrorEnvelope& error, bool has_output_schema, McpRevision revision);

}  // namespace fleetmcp::http
