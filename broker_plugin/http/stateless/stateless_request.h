// A 2026-07-28 request on /mcp: how the front tells it from a 2025 one, and the checks the
// revision's HTTP transport puts on it before any method runs (docs/http-front.md, "Revisions").
// Such a request has no initialize before it and no session around it: its revision and the
// client's capabilities travel in its own params._meta.
#pragma once

#include <string>
#include <string_view>

#include "broker_plugin/http/base/jsonrpc.h"
#include "broker_plugin/http/base/mcp_revision.h"
#include "broker_plugin/http/transport/exchange.h"
#include "common/base/result.h"

namespace fleetmcp::http {

// The body decides: a message whose params._meta names its protocol version is stateless, and so is
// any message whose MCP-Protocol-Version header names a stateless revision (a missing envelope is
// then refused, never served as 2025).
bool asks_stateless(const HttpRequest& request, const RpcMessage& message);

// Why a stateless request is refused before it reaches a method: HTTP status and JSON-RPC error.
struct StatelessRefusal {
  int status = 400;
  int code = rpc::kInvalidRequest;
  std::string message;
  std::string requested;  // the version asked for, when the refusal is -32022 (unsupported)
};
// The JSON-RPC error response for `id` (null when the message had none).
std::string refusal_body(const StatelessRefusal& refusal, const json::Value* id);

// What a checked request's _meta says; the pointer is valid while the request's document lives.
struct StatelessEnvelope {
  McpRevision revision = McpRevision::k2026_07_28;
  const json::Value* client_capabilities = nullptr;
};

// The transport's checks on a request, first failure wins: the _meta envelope (400, -32602), the
// MCP-Protocol-Version header against it (400, -32020), the version itself (400, -32022 listing
// ours), Mcp-Method and Mcp-Name against the body (400, -32020; header values trimmed, compared
// exactly), and last whether the revision has the method at all (404, -32601: initialize, ping,
// logging/setLevel, resources/subscribe and the rest it removed).
Result<StatelessEnvelope, StatelessRefusal> check_stateless(const HttpRequest& request, const RpcMessage& message);

// Whether a checked request's client declared `capability` ("elicitation", …) in its _meta.
bool declares_capability(const RpcMessage& message, std::string_view capability);

}  // namespace fleetmcp::http
