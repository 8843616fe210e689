#include "bench/http_load/tool_call_api.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "common/base/error.h"
#include "common/base/json.h"

namespace fleetmcp::bench {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;
constexpr std::string_view kMcpAccept = "application/json, text/event-stream";

void key(JsonWriter& w, std::string_view name) { w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size())); }
void text(JsonWriter& w, std::string_view value) {
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}
void raw(JsonWriter& w, std::string_view json) {
  w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
}

// Beast (Boost 1.74) takes its own string_view, not std::string_view.
boost::beast::string_view beast_text(std::string_view s) { return {s.data(), s.size()}; }

std::string finished(const rapidjson::StringBuffer& buffer) { return std::string(buffer.GetString(), buffer.GetSize()); }

// The error code of an RFC-0001 envelope body, or "" when the body is not one.
std::string envelope_code(const std::string& body) {
  const auto doc = json::parse_strict(body);
  return doc ? std::string(json::get_string(*doc, "code").value_or("")) : "";
}

std::string mcp_failure(const std::string& body) {
  const auto parsed = json::parse_strict(body);
  if (!parsed) return "http 200 unreadable";
  const json::Document& doc = *parsed;
  if (const json::Value* error = json::find(doc, "error")) {
    return "rpc " + std::to_string(error->IsObject() ? json::get_int64(*error, "code").value_or(0) : 0);
  }
  const json::Value* result = json::find(doc, "result");
  if (result == nullptr || !result->IsObject()) return "http 200 no result";
  if (!json::get_bool(*result, "isError").value_or(false)) return "";
  // The front puts the envelope in _meta["io.fleetmcp/error"] (docs/http-front.md, deviation 1).
  const json::Value* meta = json::find(*result, "_meta");
  const json::Value* envelope = meta != nullptr && meta->IsObject() ? json::find(*meta, "io.fleetmcp/error") : nullptr;
  const auto code = envelope != nullptr && envelope->IsObject() ? json::get_string(*envelope, "code") : std::nullopt;
  return "isError " + std::string(code.value_or("?"));
}

}  // namespace

std::optional<CallApi> call_api_named(std::string_view name) {
  if (name == "rfc0009") return CallApi::kRfc0009;
  if (name == "mcp") return CallApi::kMcp;
  if (name == "mcp2026") return CallApi::kMcp2026;
  return std::nullopt;
}

std::string_view call_api_name(CallApi api) {
  if (api == CallApi::kMcp) return "mcp";
  return api == CallApi::kMcp2026 ? "mcp2026" : "rfc0009";
}

ToolCallApi::ToolCallApi(CallApi api, std::string host, std::string token, std::string session_id)
    : api_(api), host_(std::move(host)), authorization_("Bearer " + token), session_id_(std::move(session_id)) {}

std::shared_ptr<HttpRequestMessage> ToolCallApi::post(std::string_view target, std::string body,
                                                      std::string_view accept, std::string_view tool) const {
  auto req = std::make_shared<HttpRequestMessage>(bhttp::verb::post, beast_text(target), 11);
  req->set(bhttp::field::host, host_);
  req->set(bhttp::field::authorization, authorization_);
  req->set(bhttp::field::accept, beast_text(accept));
  req->set(bhttp::field::content_type, "application/json");
  if (api_ == CallApi::kMcp) {
    req->set("Mcp-Session-Id", session_id_);
    req->set("MCP-Protocol-Version", beast_text(kMcpRevision));
  }
  if (api_ == CallApi::kMcp2026) {
    req->set("MCP-Protocol-Version", beast_text(kStatelessRevision));
    req->set("Mcp-Method", "tools/call");
    req->set("Mcp-Name", beast_text(tool));
  }
  req->keep_alive(true);
  req->body() = std::move(body);
  req->prepare_payload();
  return req;
}

std::string ToolCallApi::rpc_body(std::string_view tool, std::string_view arguments_json, bool progress) {
  const uint64_t id = next_id_++;
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  key(w, "jsonrpc");
  text(w, "2.0");
  key(w, "id");
  w.Uint64(id);
  key(w, "method");
  text(w, "tools/call");
  key(w, "params");
  w.StartObject();
  key(w, "name");
  text(w, tool);
  key(w, "arguments");
  raw(w, arguments_json);
  if (progress || api_ == CallApi::kMcp2026) {
    key(w, "_meta");
    w.StartObject();
    if (progress) {
      key(w, "progressToken");
      w.Uint64(id);
    }
    if (api_ == CallApi::kMcp2026) {
      key(w, "io.modelcontextprotocol/protocolVersion");
      text(w, kStatelessRevision);
      key(w, "io.modelcontextprotocol/clientCapabilities");
      w.StartObject();
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return finished(buffer);
}

std::string ToolCallApi::rfc0009_body(std::string_view tool, std::string_view arguments_json) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  key(w, "tool");
  text(w, tool);
  key(w, "arguments");
  raw(w, arguments_json);
  w.EndObject();
  return finished(buffer);
}

std::shared_ptr<const HttpRequestMessage> ToolCallApi::call(std::string_view tool, std::string_view arguments_json) {
  if (api_ != CallApi::kRfc0009) return post("/mcp", rpc_body(tool, arguments_json, false), kMcpAccept, tool);
  return post("/mcp/tools/call", rfc0009_body(tool, arguments_json), "application/json", tool);
}

std::shared_ptr<const HttpRequestMessage> ToolCallApi::stream(std::string_view tool, int interval_ms) {
  const std::string arguments = "{\"interval_ms\":" + std::to_string(interval_ms) + "}";
  if (api_ != CallApi::kRfc0009) return post("/mcp", rpc_body(tool, arguments, true), kMcpAccept, tool);
  // RFC-0009 §3: the stream needs Accept: text/event-stream itself.
  return post("/mcp/tools/call", rfc0009_body(tool, arguments), "text/event-stream", tool);
}

std::string ToolCallApi::failure_of(const HttpReplyMessage& reply) const {
  const unsigned status = reply.result_int();
  if (status != 200) {
    const std::string code = envelope_code(reply.body());
    return "http " + std::to_string(status) + (code.empty() ? "" : " " + code);
  }
  return api_ == CallApi::kRfc0009 ? "" : mcp_failure(reply.body());
}

std::string open_mcp_session(const tcp::endpoint& server, const std::string& token) {
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect(server);
  boost::beast::flat_buffer buffer;
  const auto exchange = [&](std::string body, const std::string& session) {
    HttpRequestMessage req(bhttp::verb::post, "/mcp", 11);
    req.set(bhttp::field::host, "127.0.0.1");
    req.set(bhttp::field::authorization, "Bearer " + token);
    req.set(bhttp::field::accept, beast_text(kMcpAccept));
    req.set(bhttp::field::content_type, "application/json");
    if (!session.empty()) {
      req.set("Mcp-Session-Id", session);
      req.set("MCP-Protocol-Version", beast_text(ToolCallApi::kMcpRevision));
    }
    req.body() = std::move(body);
    req.prepare_payload();
    bhttp::write(socket, req);
    HttpReplyMessage reply;
    bhttp::read(socket, buffer, reply);
    return reply;
  };
  const HttpReplyMessage init = exchange(
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":")" +
          std::string(ToolCallApi::kMcpRevision) +
          R"(","capabilities":{},"clientInfo":{"name":"fleetmcp-http-load","version":"1"}}})",
      "");
  const auto session = init.find("Mcp-Session-Id");
  if (init.result_int() != 200 || session == init.end()) {
    throw Error(ErrorCode::kBadRequest, "MCP initialize refused: HTTP " + std::to_string(init.result_int()),
                "check the token and the /mcp endpoint");
  }
  const std::string id(session->value());
  const HttpReplyMessage ack = exchange(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", id);
  if (ack.result_int() != 202) {
    throw Error(ErrorCode::kBadRequest, "notifications/initialized answered HTTP " + std::to_string(ack.result_int()), "");
  }
  return id;
}

}  // namespace fleetmcp::bench
