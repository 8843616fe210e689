// fuzz_jsonrpc: a POST /mcp body as the MCP endpoint reads it (mcp_endpoint.cc): parsed strictly,
// then each message (of a batch, too) classified (broker_plugin/http/base/jsonrpc.h), and the
// answers to it written as the endpoint writes them. No front: this target is the JSON-RPC layer
// alone, at the speed of the parser.
//
// Properties: a request or response id comes back unchanged in the result and the error written
// for it; every answer and notification written is JSON; a batch's duplicate id is one of its
// requests' ids.
#include <set>
#include <string>

#include "broker_plugin/http/base/jsonrpc.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;
using namespace fleetmcp::http;

namespace {

// An answer nests what it answers one or two levels deeper: read it back with room for that.
json::Document must_parse(const std::string& written, const char* what) {
  auto parsed = json::parse_strict(written, ErrorCode::kInternal, json::ParseLimits{64 << 20, 128});
  if (!parsed) fuzz::property_failed(what);
  return std::move(*parsed);
}

// Writes the answers the endpoint writes for one message and checks them.
void answer(const json::Value& message, std::set<std::string>& request_ids) {
  const RpcMessage m = classify(message);
  const json::Value null_result;
  if (m.id != nullptr) {
    const std::string key = id_key(*m.id);
    if (m.kind == RpcKind::kRequest) request_ids.insert(key);
    const json::Value& result = m.params != nullptr ? *m.params : null_result;
    const auto reply = must_parse(rpc_result(*m.id, result), "rpc_result wrote something other than JSON");
    if (id_key(reply["id"]) != key) fuzz::property_failed("rpc_result changed the request's id");
    const ErrorEnvelope envelope(ErrorCode::kBadRequest, std::string(m.method), "fix the request");
    const auto error = must_parse(rpc_error(m.id, rpc::kInvalidParams, m.method, &envelope),
                                  "rpc_error wrote something other than JSON");
    if (id_key(error["id"]) != key) fuzz::property_failed("rpc_error changed the request's id");
  }
  if (m.kind == RpcKind::kNotification || m.kind == RpcKind::kRequest) {
    (void)must_parse(rpc_notification(m.method, m.params), "rpc_notification wrote something other than JSON");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parsed = json::parse_strict(fuzz::as_text(data, size));
  if (!parsed) {
    (void)must_parse(rpc_error(nullptr, rpc::kParseError, "Parse error", &parsed.error()),
                     "the parse error's answer is not JSON");
    return 0;
  }
  const json::Document& body = *parsed;
  std::set<std::string> request_ids;
  if (!body.IsArray()) {
    answer(body, request_ids);
    return 0;
  }
  for (const auto& message : body.GetArray()) answer(message, request_ids);
  if (const auto duplicate = duplicate_request_id(body); duplicate && !request_ids.count(*duplicate)) {
    fuzz::property_failed("duplicate_request_id named an id no request of the batch has");
  }
  return 0;
}
