#include "broker_plugin/http/surface/kind_tools.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "broker_plugin/http/surface/compact_tools.h"
#include "broker_plugin/http/surface/fleet_read.h"
#include "broker_plugin/http/surface/tool_hints.h"
#include "common/ids/ulid.h"

namespace fleetmcp::http {
namespace {

// Bound into by_kind cursors, so a per_node cursor (or another list's) is refused here.
constexpr std::string_view kCursorContext = "tools/list by_kind";

json::Value str(std::string_view s, json::Allocator& a) { return json::string_value(s, a); }

}  // namespace

// What one by_kind tool stands for among the tenant's per-node tools.
struct KindTools::Group {
  FleetTool sample;  // a copy of the tool of the most cautious safety class
  std::set<std::string> cap_ids;
  std::set<std::string> node_ids;  // at most kNodeEnumMax + 1: "more than the enum holds"
};

namespace {

using KindVerbGroup = KindTools::Group;

KindTools::Groups groups_of(const FleetSnapshot& fleet, std::string_view tenant) {
  std::map<std::string, const FleetTool*> samples;
  KindTools::Groups groups;
  for (const FleetTool* t : fleet.tools(tenant)) {
    const std::string name = kind_tool_name(*t);
    const FleetTool*& sample = samples[name];
    if (sample == nullptr || t->safety_class > sample->safety_class) sample = t;
    KindVerbGroup& g = groups[name];
    if (g.cap_ids.size() <= kCapEnumMax) g.cap_ids.insert(t->name.cap_id);
    if (g.node_ids.size() <= kNodeEnumMax) g.node_ids.insert(t->name.node_id);
  }
  for (auto& [name, g] : groups) g.sample = *samples[name];
  return groups;
}

// The tenant's kinds (tenant_kinds) from its grouping: each group is one (kind, verb) of them.
std::vector<std::string> kinds_of(const KindTools::Groups& groups) {
  std::set<std::string> kinds;
  for (const auto& [name, g] : groups) kinds.insert(g.sample.kind);
  return {kinds.begin(), kinds.end()};
}

json::Value string_enum(const std::set<std::string>& values, json::Allocator& a) {
  json::Value e(rapidjson::kArrayType);
  for (const auto& v : values) e.PushBack(str(v, a), a);
  return e;
}

json::Value input_schema(const PerNodeTools& per_node, const FleetTool& sample, const KindVerbGroup& g,
                         json::Allocator& a) {
  json::Value props(rapidjson::kObjectType), required(rapidjson::kArrayType);
  json::Value node(rapidjson::kObjectType);
  node.AddMember("type", "string", a);
  if (g.node_ids.size() <= kNodeEnumMax) {
    node.AddMember("enum", string_enum(g.node_ids, a), a);  // says it all: no description repeated in every tool
  } else {
    node.AddMember("pattern", str(kNodeIdPattern, a), a);
    node.AddMember("description", "A node_id from fleet_find_nodes.", a);  // short: every tool repeats it
  }
  props.AddMember("node_id", node, a);
  required.PushBack("node_id", a);
  if (g.cap_ids.size() > 1) {
    json::Value cap(rapidjson::kObjectType);
    cap.AddMember("type", "string", a);
    if (g.cap_ids.size() <= kCapEnumMax) cap.AddMember("enum", string_enum(g.cap_ids, a), a);
    cap.AddMember("description", "Which capability of the kind; optional when the node has one.", a);
    props.AddMember("cap_id", cap, a);
  }
  json::Value arguments = per_node.input_schema_json(sample, a);
  const json::Value* req = json::find(arguments, "required");
  if (req != nullptr && req->IsArray() && !req->Empty()) required.PushBack("arguments", a);
  props.AddMember("arguments", arguments, a);
  json::Value schema(rapidjson::kObjectType);
  schema.AddMember("type", "object", a);
  schema.AddMember("properties", props, a);
  schema.AddMember("required", required, a);
  schema.AddMember("additionalProperties", false, a);
  return schema;
}

json::Value tool_json(const PerNodeTools& per_node, const std::string& name, const KindVerbGroup& g,
                      McpRevision revision, json::Allocator& a) {
  const FleetTool& t = g.sample;
  json::Value v(rapidjson::kObjectType);
  v.AddMember("name", str(name, a), a);
  if (has_structured_output(revision)) v.AddMember("title", str(t.verb.title, a), a);
  v.AddMember("description", str(render_description(t.verb), a), a);  // the kind's template only
  v.AddMember("inputSchema", input_schema(per_node, t, g, a), a);
  if (has_structured_output(revision)) v.AddMember("outputSchema", per_node.output_schema_json(t.verb.output_schema, a), a);
  v.AddMember("annotations", annotations_json(t, a), a);
  v.AddMember("x-safety-class", str(safety_class_name(t.verb_class()), a), a);
  json::Value meta = tool_meta(t.verb_class(), t.verb.stability, a);
  meta.AddMember("io.fleetmcp/kind", str(t.kind, a), a);
  meta.AddMember("io.fleetmcp/verb", str(t.name.verb, a), a);
  v.AddMember("_meta", meta, a);
  return v;
}

// A by_kind tool's own arguments name no single tool: an execution error naming the argument,
// audited under the by_kind name.
CallRefusal invalid(std::string_view name, std::string_view where, std::string_view what, std::string_view fix) {
  return CallRefusal{RefusalKind::kExecution,
                     ErrorEnvelope(ErrorCode::kInvalidArguments,
                                   "invalid arguments at " + std::string(where) + ": " + std::string(what), fix),
                     nullptr, std::string(name), {}, {}};
}

bool tenant_has(const FleetSnapshot& fleet, std::string_view tenant, std::string_view name) {
  for (const FleetTool* t : fleet.tools(tenant)) {
    if (is_kind_tool_name(*t, name)) return true;
  }
  return false;
}

std::string joined(const std::vector<const FleetTool*>& tools) {
  std::string out;
  for (const FleetTool* t : tools) out += (out.empty() ? "" : ", ") + t->name.cap_id;
  return out;
}

}  // namespace

std::string kind_tool_name(std::string_view kind, std::string_view verb) {
  std::string name(kind);
  for (char& c : name) {
    if (c == '.') c = '_';
  }
  return name + "_" + std::string(verb);
}

std::string kind_tool_name(const FleetTool& t) { return kind_tool_name(t.kind, t.verb.action); }

bool is_kind_tool_name(const FleetTool& t, std::string_view name) {
  return kind_tool_name(t) == name || kind_tool_name(t.kind, t.name.verb) == name;
}

std::shared_ptr<const KindTools::Groups> KindTools::groups(const FleetSnapshot& fleet, std::string_view tenant) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = cache_.find(tenant);
    if (it != cache_.end() && it->second.generation == fleet.generation()) return it->second.groups;
  }
  // Outside the lock: two threads may both group a new snapshot; either result is the same.
  auto fresh = std::make_shared<const Groups>(groups_of(fleet, tenant));
  std::lock_guard<std::mutex> lock(mutex_);
  cache_.insert_or_assign(std::string(tenant), Cached{fleet.generation(), fresh});
  return fresh;
}

Result<json::Document> KindTools::list(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* cursor,
                                      McpRevision revision) const {
  const auto after = per_node_.cursors().last_item(kCursorContext, cursor);
  if (!after) return after.error();
  const auto by_name = groups(fleet, tenant);
  // The served order: the kind tools by name, then the two fleet tools (no group).
  std::vector<std::pair<std::string_view, const Group*>> served;
  served.reserve(by_name->size() + 2);
  for (const auto& [name, group] : *by_name) served.emplace_back(name, &group);
  served.emplace_back(kFindNodesTool, nullptr);
  served.emplace_back(kFleetReadTool, nullptr);
  size_t i = 0;
  if (*after) {
    const auto at = std::find_if(served.begin(), served.end(), [&](const auto& s) { return s.first == **after; });
    // A tool that has gone since the cursor was made: resume at the kind tools that sort after it.
    i = at != served.end() ? static_cast<size_t>(at - served.begin()) + 1
                           : static_cast<size_t>(std::distance(by_name->begin(), by_name->upper_bound(**after)));
  }
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value tools(rapidjson::kArrayType);
  for (; i < served.size() && tools.Size() < per_node_.page_size(); ++i) {
    const auto& [name, group] = served[i];
    if (group != nullptr) {
      tools.PushBack(tool_json(per_node_, std::string(name), *group, revision, a), a);
    } else if (name == kFindNodesTool) {
      tools.PushBack(CompactTools::find_nodes_tool(kinds_of(*by_name), revision, a), a);
    } else {
      tools.PushBack(fleet_read_tool(revision, a), a);
    }
  }
  d.AddMember("tools", tools, a);
  // Only when something follows, as in per_node: the last page has no cursor.
  if (i < served.size()) d.AddMember("nextCursor", str(per_node_.cursors().encode(kCursorContext, served[i - 1].first), a), a);
  return d;
}

std::string KindTools::call_name(const FleetTool& tool) const { return kind_tool_name(tool); }

std::string KindTools::instructions() const {
  return "Tools act on the devices of your tenant's fleet: one tool per kind of capability and verb (for example "
         "gpio_pin_set_mode), whose node_id argument names the device to act on, cap_id the capability when the "
         "device has several of that kind, and arguments the verb's own. fleet_find_nodes lists your nodes and "
         "their kinds; fleet_read runs one read-only tool on many nodes at once. " +
         std::string(kFailureInstructions);
}

std::string KindTools::digest(const FleetSnapshot& fleet, std::string_view tenant) const {
  // fleet_find_nodes' kind enum is the kinds in these groups' names (the registry's kinds have no
  // '_', so a name tells its kind): a change of it changes the names below, no line of its own.
  std::string d;
  for (const auto& [name, g] : *groups(fleet, tenant)) {
    d += name + ":" + std::string(safety_class_name(g.sample.safety_class)) + ":" + g.sample.verb.input_schema + ":" +
         g.sample.verb.output_schema + ":";
    for (const auto& c : g.cap_ids) d += c + ",";
    d += ":";
    if (g.node_ids.size() <= kNodeEnumMax) {
      for (const auto& n : g.node_ids) d += n + ",";
    }
    d += "\n";
  }
  return d;
}

Result<ResolvedCall, CallRefusal> resolve_kind_call(const FleetSnapshot& fleet, std::string_view tenant, std::string_view name,
                                                    const json::Value* args) {
  static const json::Value kEmpty(rapidjson::kObjectType);
  if (args == nullptr) args = &kEmpty;
  if (!args->IsObject()) return invalid(name, "the top level", "arguments must be an object", "pass {node_id, arguments}");
  for (const auto& m : args->GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key != "node_id" && key != "cap_id" && key != "arguments") {
      return invalid(name, std::string("/").append(ascii_clamp(key, 40)), "is not an argument of this tool",
                     "pass only node_id, cap_id and arguments (the capability's own arguments go inside arguments)");
    }
  }
  const auto node_id = json::get_string(*args, "node_id");
  if (!node_id) {
    return invalid(name, "/node_id", "a node_id string is required", "name the node; fleet_find_nodes lists yours");
  }
  // The node's tools this name means. Another tenant's node finds none, like a missing one.
  std::vector<const FleetTool*> matching;
  if (const FleetNode* node = fleet.node(tenant, *node_id)) {
    for (const FleetTool& t : node->tools) {
      if (is_kind_tool_name(t, name)) matching.push_back(&t);
    }
  }
  if (matching.empty()) {
    if (!tenant_has(fleet, tenant, name)) return unknown_tool(name);
    // No such node for this caller: docs/protocol.md §9's code for it (D17), not an argument error.
    return CallRefusal{RefusalKind::kExecution,
                       ErrorEnvelope(ErrorCode::kManifestNotFound,
                                     "no node " + ascii_clamp(*node_id, 32) + " of yours offers this tool (at /node_id)",
                                     "use a node_id that fleet_find_nodes lists for this kind"),
                       nullptr, std::string(name), {}, {}};
  }
  const FleetTool* tool = matching.size() == 1 ? matching.front() : nullptr;
  if (const json::Value* cap = json::find(*args, "cap_id")) {
    tool = nullptr;
    for (const FleetTool* t : matching) {
      if (cap->IsString() && t->name.cap_id == std::string_view(cap->GetString(), cap->GetStringLength())) tool = t;
    }
    if (tool == nullptr) {
      return invalid(name, "/cap_id", "the node has no such capability of this kind", "use one of: " + joined(matching));
    }
  }
  if (tool == nullptr) {
    return invalid(name, "/cap_id", "the node has several capabilities of this kind", "add cap_id, one of: " + joined(matching));
  }
  const json::Value* arguments = json::find(*args, "arguments");
  if (arguments != nullptr && !arguments->IsObject()) {
    return invalid(name, "/arguments", "must be an object", "pass the capability's arguments as an object");
  }
  // The gate validates the arguments (once, for every path) and names them as /arguments/….
  return ResolvedCall{ResolvedCall::Action::kCall, tool, arguments, "/arguments", {}};
}

}  // namespace fleetmcp::http
