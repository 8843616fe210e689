// JSON-RPC 2.0 as MCP uses it: classifying an incoming message and writing responses, errors
// (with the RFC-0001 envelope in error.data, docs/protocol.md D12/§9) and notifications.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/base/error.h"
#include "common/base/json.h"

namespace fleetmcp::http {

namespace rpc {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// Transport-level refusals, as the MCP SDK servers spell them.
inline constexpr int kServerError = -32000;
inline constexpr int kSessionNotFound = -32001;
inline constexpr int kResourceNotFound = -32002;  // MCP resources/read of an unknown URI
// 2026-07-28: an HTTP header that disagrees with the body, a version the server does not speak.
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kUnsupportedProtocolVersion = -32022;
}  // namespace rpc

enum class RpcKind { kRequest, kNotification, kResponse, kInvalid };

// A view into a parsed message; valid while the document it came from lives.
struct RpcMessage {
  RpcKind kind = RpcKind::kInvalid;
  const json::Value* id = nullptr;      // requests and responses
  std::string_view method;              // requests and notifications
  const json::Value* params = nullptr;  // may be null
};

RpcMessage classify(const json::Value& message);

// The id as compact JSON text ("1", "\"abc\""): a key for in-flight requests.
std::string id_key(const json::Value& id);
// The first request id (as id_key writes it) that two requests of a batch (an array) share.
std::optional<std::string> duplicate_request_id(const json::Value& batch);

std::string rpc_result(const json::Value& id, const json::Value& result);
// The same response for the id given as id_key's text of it (what a pending call keeps).
std::string rpc_result(std::string_view id_json, const json::Value& result);
// The result object ("{…}") of `response`, a response rpc_result (or a writer of the same bytes)
// wrote for `id_json`; empty for an error or a result that is no object.
std::string_view result_object(std::string_view response, std::string_view id_json);
// Puts `members` (JSON object members, `"k":v,…`) first in that result object: an answer gains
// fields without being parsed again. False, and `response` unchanged, when there is none.
bool prepend_result_members(std::string& response, std::string_view id_json, std::string_view members);
// id null -> "id":null (errors about a message whose id is unknown).
std::string rpc_error(const json::Value* id, int code, std::string_view message,
                      const ErrorEnvelope* envelope = nullptr, const json::Value* extra_data = nullptr);
std::string rpc_notification(std::string_view method, const json::Value* params);

}  // namespace fleetmcp::http
