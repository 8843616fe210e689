#include "broker_plugin/http/base/jsonrpc.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <set>

#include "common/base/error_value.h"

namespace fleetmcp::http {
namespace {

bool is_valid_id(const json::Value& id) { return id.IsString() || id.IsInt64() || id.IsUint64() || id.IsNull(); }

}  // namespace

RpcMessage classify(const json::Value& m) {
  RpcMessage out;
  if (!m.IsObject() || json::get_string(m, "jsonrpc") != std::optional<std::string_view>("2.0")) return out;
  const json::Value* id = json::find(m, "id");
  const auto method = json::get_string(m, "method");
  const json::Value* params = json::find(m, "params");
  if (params != nullptr && !params->IsObject() && !params->IsArray()) return out;
  if (id != nullptr && !is_valid_id(*id)) return out;
  if (method) {
    if (id != nullptr && id->IsNull()) return out;  // MCP: a request id is never null
    out.kind = id != nullptr ? RpcKind::kRequest : RpcKind::kNotification;
    out.method = *method;
    out.id = id;
    out.params = params;
  } else if (id != nullptr && (m.HasMember("result") || m.HasMember("error"))) {
    out.kind = RpcKind::kResponse;
    out.id = id;
  }
  return out;
}

std::string id_key(const json::Value& id) { return json::to_string(id); }

std::optional<std::string> duplicate_request_id(const json::Value& batch) {
  std::set<std::string> seen;
  for (const auto& message : batch.GetArray()) {
    const RpcMessage m = classify(message);
    if (m.kind == RpcKind::kRequest && !seen.insert(id_key(*m.id)).second) return id_key(*m.id);
  }
  return std::nullopt;
}

std::string rpc_result(const json::Value& id, const json::Value& result) { return rpc_result(id_key(id), result); }

std::string rpc_result(std::string_view id_json, const json::Value& result) {
  // Written straight out: no document holding copies of the id and the (possibly large) result.
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("jsonrpc");
  w.String("2.0");
  w.Key("id");
  w.RawValue(id_json.data(), id_json.size(), rapidjson::kStringType);  // the id as the Writer wrote it
  w.Key("result");
  result.Accept(w);
  w.EndObject();
  // With room for what a 2026-07-28 answer gains in front (stamp_stateless_result): no second
  // allocation for it.
  std::string out;
  out.reserve(buf.GetSize() + 64);
  out.append(buf.GetString(), buf.GetSize());
  return out;
}

std::string_view result_object(std::string_view response, std::string_view id_json) {
  // rpc_result's bytes: {"jsonrpc":"2.0","id":<id_json>,"result":{…}}
  constexpr std::string_view kHead = R"({"jsonrpc":"2.0","id":)";
  constexpr std::string_view kResult = R"(,"result":{)";
  if (!response.starts_with(kHead) || response.substr(kHead.size(), id_json.size()) != id_json ||
      response.substr(kHead.size() + id_json.size(), kResult.size()) != kResult) {
    return {};
  }
  return response.substr(kHead.size() + id_json.size() + kResult.size() - 1);
}

bool prepend_result_members(std::string& response, std::string_view id_json, std::string_view members) {
  const std::string_view result = result_object(response, id_json);
  if (result.empty()) return false;
  const size_t at = response.size() - result.size() + 1;  // after the result's '{'
  const bool empty = result.starts_with("{}");
  response.reserve(response.size() + members.size() + 1);  // one allocation for both insertions
  if (!empty) response.insert(at, 1, ',');
  response.insert(at, members);
  return true;
}

std::string rpc_error(const json::Value* id, int code, std::string_view message, const ErrorEnvelope* envelope,
                      const json::Value* extra_data) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("jsonrpc", "2.0", a);
  json::Value idv;
  if (id != nullptr) idv.CopyFrom(*id, a);
  d.AddMember("id", idv, a);
  json::Value err(rapidjson::kObjectType);
  err.AddMember("code", code, a);
  err.AddMember("message", json::string_value(ascii_clamp(message), a), a);
  if (envelope != nullptr) {
    json::Value data = error_value(*envelope, a);
    if (extra_data != nullptr && extra_data->IsObject()) {
      for (const auto& m : extra_data->GetObject()) {
        json::Value k, v;
        k.CopyFrom(m.name, a);
        v.CopyFrom(m.value, a);
        data.AddMember(k, v, a);
      }
    }
    err.AddMember("data", data, a);
  } else if (extra_data != nullptr) {
    json::Value data;
    data.CopyFrom(*extra_data, a);
    err.AddMember("data", data, a);
  }
  d.AddMember("error", err, a);
  return json::to_string(d);
}

std::string rpc_notification(std::string_view method, const json::Value* params) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("jsonrpc", "2.0", a);
  d.AddMember("method", json::string_value(method, a), a);
  if (params != nullptr) {
    json::Value p;
    p.CopyFrom(*params, a);
    d.AddMember("params", p, a);
  }
  return json::to_string(d);
}

}  // namespace fleetmcp::http
