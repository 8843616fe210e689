#include "broker_plugin/http/surface/tool_result.h"

#include "broker_plugin/http/base/jsonrpc.h"
#include "common/base/error_value.h"

namespace fleetmcp::http {
namespace {

json::Value text_content(std::string_view text, json::Allocator& a) {
  json::Value block(rapidjson::kObjectType);
  block.AddMember("type", "text", a);
  block.AddMember("text", json::string_value(text, a), a);
  json::Value content(rapidjson::kArrayType);
  content.PushBack(block, a);
  return content;
}

// A result carrying an inline image preview (camera.still's `preview`: mime_type, data_base64)
// shows it once, as MCP image content a client can display; the text block leaves the base64 out.
const json::Value* image_preview(const json::Value& structured) {
  const json::Value* preview = structured.IsObject() ? json::find(structured, "preview") : nullptr;
  if (preview == nullptr || !preview->IsObject()) return nullptr;
  const auto data = json::get_string(*preview, "data_base64");
  const auto mime = json::get_string(*preview, "mime_type");
  return data && mime && mime->starts_with("image/") ? preview : nullptr;
}

std::string text_without_image(const json::Value& structured) {
  json::Document copy;
  copy.CopyFrom(structured, copy.GetAllocator());
  copy["preview"]["data_base64"].SetString("(omitted here: the image content of this result)", copy.GetAllocator());
  return json::to_string(copy);
}

// `d` is an empty object; `structured` is the result, its strings in d's allocator (moved in).
void fill_success(json::Document& d, json::Value& structured, std::string_view text, McpRevision revision,
                  const ResourceLink* link) {
  auto& a = d.GetAllocator();
  const json::Value* preview = image_preview(structured);
  const std::string shown = preview != nullptr ? text_without_image(structured) : std::string(text);
  json::Value content = text_content(shown, a);
  if (preview != nullptr) {
    json::Value block(rapidjson::kObjectType);
    block.AddMember("type", "image", a);
    block.AddMember("data", json::string_value(*json::get_string(*preview, "data_base64"), a), a);
    block.AddMember("mimeType", json::string_value(*json::get_string(*preview, "mime_type"), a), a);
    content.PushBack(block, a);
  }
  if (link != nullptr && has_structured_output(revision)) {
    json::Value block(rapidjson::kObjectType);
    block.AddMember("type", "resource_link", a);
    block.AddMember("uri", json::string_value(link->uri, a), a);
    block.AddMember("name", json::string_value(link->name, a), a);
    block.AddMember("mimeType", json::string_value(link->mime_type, a), a);
    block.AddMember("size", static_cast<uint64_t>(link->size_bytes), a);
    content.PushBack(block, a);
  }
  d.AddMember("content", content, a);
  if (has_structured_output(revision)) d.AddMember("structuredContent", structured, a);
  d.AddMember("isError", false, a);
}

}  // namespace

json::Document tool_success(std::string_view result_json, McpRevision revision, const ResourceLink* link) {
  // The result is parsed into the document that is returned and moved under structuredContent
  // there: no second document and no copy of the result (one per MCP tools/call).
  json::Document d = json::parse_strict(result_json, ErrorCode::kInternal).value();
  json::Value structured;
  structured.Swap(d);
  d.SetObject();
  fill_success(d, structured, result_json, revision, link);
  return d;
}

std::string rpc_tool_success(std::string_view id_json, std::string_view result_json, McpRevision revision) {
  if (result_json.find("\"preview\"") != std::string_view::npos) {
    return rpc_result(id_json, tool_success(result_json, revision));
  }
  // rpc_result's bytes, fill_success's members in its order: the text block is the one string
  // to escape (json::append_string, as the Writer escapes), structuredContent the result as it is.
  std::string out;
  out.reserve(id_json.size() + 2 * result_json.size() + 128);
  out += R"({"jsonrpc":"2.0","id":)";
  out += id_json;
  out += R"(,"result":{"content":[{"type":"text","text":)";
  json::append_string(out, result_json);
  out += "}]";
  if (has_structured_output(revision)) {
    out += R"(,"structuredContent":)";
    out += result_json;
  }
  out += R"(,"isError":false}})";
  return out;
}

json::Document tool_success(const json::Value& structured, std::string_view text, McpRevision revision) {
  json::Document d(rapidjson::kObjectType);
  json::Value copy;
  copy.CopyFrom(structured, d.GetAllocator());
  fill_success(d, copy, text, revision, nullptr);
  return d;
}

json::Document tool_error(const ErrorEnvelope& error, bool has_output_schema, McpRevision revision) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value envelope = error_value(error, a);
  d.AddMember("content", text_content(json::to_string(envelope), a), a);
  if (has_structured_output(revision) && !has_output_schema) {
    json::Value s;
    s.CopyFrom(envelope, a);
    d.AddMember("structuredContent", s, a);
  }
  d.AddMember("isError", true, a);
  json::Value meta(rapidjson::kObjectType);
  meta.AddMember(json::string_value(kErrorMetaKey, a), envelope, a);
  d.AddMember("_meta", meta, a);
  return d;
}

}  // namespace fleetmcp::http
