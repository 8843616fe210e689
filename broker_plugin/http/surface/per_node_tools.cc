#include "broker_plugin/http/surface/per_node_tools.h"

#include <algorithm>

#include "broker_plugin/http/surface/portable_schema.h"
#include "broker_plugin/http/surface/tool_hints.h"
#include "common/crypto/digest.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kCursorContext = "tools/list";

json::Value str(std::string_view s, json::Allocator& a) { return json::string_value(s, a); }

}  // namespace

json::Value annotations_json(const FleetTool& tool, json::Allocator& a) {
  const ToolHints hints = tool_hints(tool.kind, tool.safety_class, tool.name.verb);
  json::Value v(rapidjson::kObjectType);
  v.AddMember("readOnlyHint", hints.read_only, a);
  v.AddMember("destructiveHint", hints.destructive, a);
  v.AddMember("idempotentHint", hints.idempotent, a);
  // The tools act only on the caller's own enrolled devices, not on an open world.
  v.AddMember("openWorldHint", false, a);
  // RFC-0001 §3: the projected tool's annotation carries x-safety-class: the verb's class, so a
  // read of a physical capability says read_only (docs/protocol.md D36).
  v.AddMember("x-safety-class", json::string_value(safety_class_name(tool.verb_class()), a), a);
  return v;
}

json::Value tool_meta(SafetyClass safety_class, Stability stability, json::Allocator& a) {
  json::Value meta(rapidjson::kObjectType);
  meta.AddMember("x-safety-class", json::string_value(safety_class_name(safety_class), a), a);
  meta.AddMember(json::string_value(kStabilityMetaKey, a), json::string_value(stability_name(stability), a), a);
  return meta;
}

namespace {

// "system.echo invoke on 01hzx…" — server data only.
std::string tool_title(const FleetTool& tool) {
  return tool.kind + " " + tool.name.verb + " (" + tool.name.cap_id + " on " + tool.name.node_id + ")";
}

// The served output schema: the portable document but its top description, under an `$id` of its
// own placed first. Not the registry's id: the served text differs from the registry's document.
// The id ends in a hash of that text so that, like a registry id (docs/protocol.md §13), it never
// names two contents, even when a later front rewrites schemas differently: clients cache
// compiled validators by $id.
json::Document output_document(std::string_view id, const json::Value& portable) {
  json::Document out(rapidjson::kObjectType);
  auto& a = out.GetAllocator();
  out.AddMember("$id", "", a);  // filled in once the rest is there
  if (portable.IsObject()) {
    for (const auto& m : portable.GetObject()) {
      if (m.name != "description") out.AddMember(json::Value(m.name, a), json::Value(m.value, a), a);
    }
  }
  const std::string hash = blake3_256_hex(json::to_string(out)).substr(0, 16);
  out["$id"] = str(std::string(id) + "/served-" + hash, a);
  return out;
}

}  // namespace

PerNodeTools::PerNodeTools(std::shared_ptr<const SchemaRegistry> schemas, ToolNameStyle style, size_t page_size)
    : schemas_(std::move(schemas)), style_(style), page_size_(std::max<size_t>(1, page_size)) {
  for (const SchemaDocument* doc : schemas_->list()) {
    // Served schemas are the portable rewrite (portable_schema.h); validation uses the registry's.
    json::Document d = json::parse_strict(doc->bytes, ErrorCode::kInternal).value();
    make_portable(d, d.GetAllocator());
    parsed_output_.emplace(doc->id, output_document(doc->id, d));
    parsed_.emplace(doc->id, std::move(d));
  }
}

std::string PerNodeTools::instructions() const {
  const std::string_view names = style_ == ToolNameStyle::kDashed
                                     ? "{kind_short}-{node_id}-{cap_id}-{verb}, for example sysecho-<node_id>-echo-invoke"
                                     : "{kind_short}.{node_id}.{cap_id}.{verb}, for example sysecho.<node_id>.echo.invoke";
  return "Tools act on the devices of your tenant's fleet: one tool per device, capability and verb, named " +
         std::string(names) + ". " + std::string(kFailureInstructions);
}

std::string PerNodeTools::presented_name(const ToolName& name) const {
  return style_ == ToolNameStyle::kDashed ? name.dashed() : name.dotted();
}

json::Value PerNodeTools::schema_json(std::string_view id, json::Allocator& alloc) const {
  json::Value out;
  const auto it = parsed_.find(id);
  if (it == parsed_.end()) {
    // A kind row naming a schema the registry lacks cannot load (SchemaRegistry checks); keep the
    // tool usable anyway rather than failing the whole list.
    out.SetObject();
    out.AddMember("type", "object", alloc);
    return out;
  }
  out.CopyFrom(it->second, alloc);
  return out;
}

json::Value PerNodeTools::output_schema_json(std::string_view id, json::Allocator& a) const {
  const auto it = parsed_output_.find(id);
  if (it == parsed_output_.end()) return schema_json(id, a);  // unknown id: see schema_json
  json::Value out;
  out.CopyFrom(it->second, a);
  return out;
}

json::Value PerNodeTools::input_schema_json(const FleetTool& tool, json::Allocator& a) const {
  json::Value schema = schema_json(tool.verb.input_schema, a);
  // A tool whose arguments can ask for the force override (tool_hints.h) is two-phase when it does.
  const auto properties = schema.FindMember("properties");
  const bool can_force = properties != schema.MemberEnd() && properties->value.IsObject() &&
                         properties->value.HasMember(kForceArgument.data());  // a literal: NUL-terminated
  if (!needs_commit_token(tool.verb_class(), tool.name.verb) && !can_force) return schema;
  if (!schema.HasMember("properties")) schema.AddMember("properties", json::Value(rapidjson::kObjectType), a);
  json::Value prop(rapidjson::kObjectType);
  prop.AddMember("type", "string", a);
  prop.AddMember("description",
                 rapidjson::StringRef(can_force
                                          ? "Confirmation of force=true: leave it out first; the refusal's suggested_fix "
                                            "carries a single-use token (30 s): ask the user, and only if they agree "
                                            "repeat the same call with it."
                                          : "A person's confirmation: leave it out first; the refusal's suggested_fix "
                                            "carries a single-use token (30 s): ask the user, and only if they agree "
                                            "repeat the same call with it."),
                 a);
  schema["properties"].AddMember(str(kCommitTokenArgument, a), prop, a);
  return schema;
}

json::Value PerNodeTools::tool_json(const FleetTool& tool, McpRevision revision, json::Allocator& a) const {
  json::Value v(rapidjson::kObjectType);
  v.AddMember("name", str(presented_name(tool.name), a), a);
  if (has_structured_output(revision)) v.AddMember("title", str(tool_title(tool), a), a);
  v.AddMember("description", str(render_description(tool.verb), a), a);
  v.AddMember("inputSchema", input_schema_json(tool, a), a);
  if (has_structured_output(revision)) v.AddMember("outputSchema", output_schema_json(tool.verb.output_schema, a), a);
  v.AddMember("annotations", annotations_json(tool, a), a);
  v.AddMember("x-safety-class", str(safety_class_name(tool.verb_class()), a), a);
  json::Value meta = tool_meta(tool.verb_class(), tool.verb.stability, a);
  meta.AddMember("io.fleetmcp/canonical_name", str(tool.canonical_name, a), a);
  v.AddMember("_meta", meta, a);
  return v;
}

Result<json::Document> PerNodeTools::list(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* cursor,
                                         McpRevision revision) const {
  const auto after = cursors_.last_item(kCursorContext, cursor);
  if (!after) return after.error();
  return page_after(fleet, tenant, *after, revision);
}

std::optional<json::Document> PerNodeTools::list_page(const FleetSnapshot& fleet, std::string_view tenant,
                                                     const std::optional<std::string>& cursor,
                                                     McpRevision revision) const {
  std::optional<std::string> after;
  if (cursor) {
    after = cursors_.decode(kCursorContext, *cursor);
    if (!after) return std::nullopt;
  }
  return page_after(fleet, tenant, after, revision);
}

json::Document PerNodeTools::page_after(const FleetSnapshot& fleet, std::string_view tenant,
                                        const std::optional<std::string>& after, McpRevision revision) const {
  const auto& tools = fleet.tools(tenant);
  auto it = after ? tools.upper_bound(*after) : tools.begin();
  json::Document result(rapidjson::kObjectType);
  auto& a = result.GetAllocator();
  json::Value list(rapidjson::kArrayType);
  std::string_view last;
  for (; it != tools.end() && list.Size() < page_size_; ++it) {
    list.PushBack(tool_json(**it, revision, a), a);
    last = it.key();
  }
  result.AddMember("tools", list, a);
  // Only when something follows: the last page has no cursor, and a cursor always advances.
  if (it != tools.end()) result.AddMember("nextCursor", str(cursors_.encode(kCursorContext, std::string(last)), a), a);
  return result;
}

}  // namespace fleetmcp::http
