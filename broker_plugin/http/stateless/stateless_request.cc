#include "broker_plugin/http/stateless/stateless_request.h"

#include <array>

#include "common/base/text.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kVersionKey = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view kCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities";

// What 2026-07-28 offers of what the front serves; everything else is "not found" on it. The
// commonest first: the list is searched for every request.
constexpr std::array<std::string_view, 10> kMethods{
    "tools/call",   "tools/list",  "resources/read",      "resources/list",       "resources/templates/list",
    "prompts/list", "prompts/get", "completion/complete", "subscriptions/listen", "server/discover"};

// The body field the Mcp-Name header mirrors, for the methods that have one.
std::string_view name_field(std::string_view method) {
  if (method == "tools/call" || method == "prompts/get") return "name";
  if (method == "resources/read") return "uri";
  return {};
}

const json::Value* meta_of(const RpcMessage& m) {
  if (m.params == nullptr || !m.params->IsObject()) return nullptr;
  const json::Value* meta = json::find(*m.params, "_meta");
  return meta != nullptr && meta->IsObject() ? meta : nullptr;
}

StatelessRefusal mismatch(std::string message) {
  return StatelessRefusal{400, rpc::kHeaderMismatch, "Header mismatch: " + std::move(message), {}};
}

}  // namespace

bool asks_stateless(const HttpRequest& request, const RpcMessage& message) {
  if (const json::Value* meta = meta_of(message); meta != nullptr && json::find(*meta, kVersionKey) != nullptr) return true;
  const auto header = request.header("MCP-Protocol-Version");
  const auto named = header ? revision_from_name(trim(*header)) : std::nullopt;
  return named && is_stateless(*named);
}

std::string refusal_body(const StatelessRefusal& refusal, const json::Value* id) {
  if (refusal.code != rpc::kUnsupportedProtocolVersion) return rpc_error(id, refusal.code, refusal.message);
  json::Document data(rapidjson::kObjectType);
  auto& a = data.GetAllocator();
  json::Value supported(rapidjson::kArrayType);
  for (const std::string_view name : kSupportedRevisionNames) supported.PushBack(json::string_value(name, a), a);
  data.AddMember("supported", supported, a);
  data.AddMember("requested", json::string_value(refusal.requested, a), a);
  return rpc_error(id, refusal.code, refusal.message, nullptr, &data);
}

Result<StatelessEnvelope, StatelessRefusal> check_stateless(const HttpRequest& request, const RpcMessage& m) {
  const json::Value* meta = meta_of(m);
  const json::Value* version = meta != nullptr ? json::find(*meta, kVersionKey) : nullptr;
  const json::Value* capabilities = meta != nullptr ? json::find(*meta, kCapabilitiesKey) : nullptr;
  if (version == nullptr || !version->IsString() || capabilities == nullptr || !capabilities->IsObject()) {
    return StatelessRefusal{400, rpc::kInvalidParams,
                            "Invalid params: a 2026-07-28 request carries params._meta with " + std::string(kVersionKey) +
                                " (a string) and " + std::string(kCapabilitiesKey) + " (an object)",
                            {}};
  }
  const std::string_view asked(version->GetString(), version->GetStringLength());
  const auto header = request.header("MCP-Protocol-Version");
  if (!header || trim(*header) != asked) {
    return mismatch("the MCP-Protocol-Version header must name the version of params._meta (" +
                    ascii_clamp(asked, 40) + ")");
  }
  const auto revision = revision_from_name(asked);
  if (!revision || !is_stateless(*revision)) {
    return StatelessRefusal{400, rpc::kUnsupportedProtocolVersion,
                            "Unsupported protocol version: " + ascii_clamp(asked, 40) +
                                " (without initialize this server speaks 2026-07-28)",
                            std::string(asked)};
  }
  const auto method = request.header("Mcp-Method");
  if (!method || trim(*method) != m.method) {
    return mismatch("the Mcp-Method header must repeat the body's method (" + ascii_clamp(m.method, 60) + ")");
  }
  if (const std::string_view field = name_field(m.method); !field.empty()) {
    const auto body_name = json::get_string(*m.params, field);
    const auto named = request.header("Mcp-Name");
    if (body_name ? (!named || trim(*named) != *body_name) : named.has_value()) {
      return mismatch("the Mcp-Name header must repeat params." + std::string(field));
    }
  }
  for (const std::string_view offered : kMethods) {
    if (offered == m.method) return StatelessEnvelope{*revision, capabilities};
  }
  return StatelessRefusal{404, rpc::kMethodNotFound,
                          "Method not found: " + ascii_clamp(m.method, 60) + " (not offered on 2026-07-28)", {}};
}

bool declares_capability(const RpcMessage& m, std::string_view capability) {
  const json::Value* meta = meta_of(m);
  const json::Value* capabilities = meta != nullptr ? json::find(*meta, kCapabilitiesKey) : nullptr;
  if (capabilities == nullptr || !capabilities->IsObject()) return false;
  const json::Value* declared = json::find(*capabilities, capability);
  return declared != nullptr && declared->IsObject();
}

}  // namespace fleetmcp::http
