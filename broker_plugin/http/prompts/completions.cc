#include "broker_plugin/http/prompts/completions.h"

#include <set>
#include <string>

#include "broker_plugin/http/prompts/fleet_prompts.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kResourcePrefix = "fleetmcp://nodes/";  // every resource template we serve

ErrorEnvelope invalid(std::string message) {
  return ErrorEnvelope(ErrorCode::kBadRequest, std::move(message),
                       "send ref {type: \"ref/prompt\", name} or {type: \"ref/resource\", uri} and argument {name, value}");
}

std::string text(const json::Value* object, std::string_view key) {
  if (object == nullptr || !object->IsObject()) return {};
  return std::string(json::get_string(*object, key).value_or(""));
}

// The candidates for `argument` of the tenant, in order (std::set: sorted, once each).
std::set<std::string> candidates(const FleetSnapshot& fleet, std::string_view tenant, std::string_view argument,
                                 const std::string& node_id) {
  std::set<std::string> out;
  if (argument == "node_id") {
    for (const FleetNode* n : fleet.nodes(tenant)) out.insert(n->node_id);
  } else if (argument == "cap_id" && !node_id.empty()) {
    if (const FleetNode* n = fleet.node(tenant, node_id)) {
      for (const FleetTool& t : n->tools) out.insert(t.name.cap_id);
    }
  } else if (argument == "cap_id" || argument == "kind") {
    for (const FleetTool* t : fleet.tools(tenant)) out.insert(argument == "kind" ? t->kind : t->name.cap_id);
  }
  return out;
}

}  // namespace

Result<json::Document> complete(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* params) {
  const json::Value* ref = params != nullptr && params->IsObject() ? json::find(*params, "ref") : nullptr;
  const json::Value* argument = params != nullptr && params->IsObject() ? json::find(*params, "argument") : nullptr;
  if (ref == nullptr || !ref->IsObject()) return invalid("completion/complete needs a ref");
  if (argument == nullptr || !argument->IsObject() || text(argument, "name").empty()) {
    return invalid("completion/complete needs an argument with a name");
  }
  const std::string type = text(ref, "type");
  if (type != "ref/prompt" && type != "ref/resource") {
    return invalid("ref.type must be ref/prompt or ref/resource, not \"" + ascii_clamp(type, 40) + "\"");
  }
  const json::Value* context = json::find(*params, "context");
  const std::string node_id = text(context != nullptr && context->IsObject() ? json::find(*context, "arguments") : nullptr,
                                   "node_id");
  const std::string typed = text(argument, "value");
  std::set<std::string> all;
  if (type == "ref/resource" ? text(ref, "uri").starts_with(kResourcePrefix) : FleetPrompts::exists(text(ref, "name"))) {
    all = candidates(fleet, tenant, text(argument, "name"), node_id);
  }
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value values(rapidjson::kArrayType), completion(rapidjson::kObjectType);
  size_t total = 0;
  for (const std::string& c : all) {
    if (!c.starts_with(typed)) continue;
    if (++total <= kMaxCompletions) values.PushBack(json::string_value(c, a), a);
  }
  completion.AddMember("values", values, a);
  completion.AddMember("total", static_cast<uint64_t>(total), a);
  completion.AddMember("hasMore", total > kMaxCompletions, a);
  d.AddMember("completion", completion, a);
  return d;
}

}  // namespace fleetmcp::http
