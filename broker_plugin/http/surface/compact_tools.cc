#include "broker_plugin/http/surface/compact_tools.h"

#include <algorithm>
#include <optional>
#include <set>

#include "broker_plugin/http/surface/tool_hints.h"
#include "broker_plugin/http/surface/tool_result.h"
#include "common/base/text.h"
#include "common/ids/ulid.h"

namespace fleetmcp::http {
namespace {

constexpr size_t kDefaultLimit = 50;
constexpr size_t kMaxLimit = 500;
constexpr int64_t kMaxExpiringWithinS = 31'536'000;

// The three tools' schemas: server constants, parsed once.
constexpr std::string_view kFindInput = R"({"type":"object","additionalProperties":false,"properties":{
"kind":{"type":"string","description":"Only nodes with this kind."},
"cap_id":{"type":"string"},
"label":{"type":"string","description":"Only nodes with this label."},
"expiring_within_s":{"type":"integer","minimum":0,"description":"Only manifests expiring within this many seconds."},
"state":{"type":"string","enum":["online","offline","expired","revoked"],"description":"Only nodes in this state."},
"limit":{"type":"integer","minimum":1,"maximum":500,"description":"Page size (default 50)."},
"cursor":{"type":"string","description":"next_cursor of the previous page."}}})";
constexpr std::string_view kFindOutput = R"({"type":"object","required":["nodes"],"properties":{
"nodes":{"type":"array","items":{"type":"object","required":["node_id","state","kinds"],"properties":{
"node_id":{"type":"string"},"hostname":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}},
"state":{"type":"string"},"state_since_ms":{"type":"integer"},
"manifest_expires_at_ms":{"type":"integer"},"kinds":{"type":"array","items":{"type":"string"}},
"capabilities":{"type":"object","description":"cap_ids by kind."},
"cap_labels":{"type":"object","description":"What each cap_id is."}}}},
"next_cursor":{"type":"string"}}})";
// The node_id pattern comes from common/ids, where is_node_id checks the same grammar.
const std::string kDescribeInput = std::string(R"({"type":"object","additionalProperties":false,"required":["node_id"],
"properties":{"node_id":{"type":"string","pattern":")") + std::string(kNodeIdPattern) + R"(","description":"A node_id from fleet_find_nodes."}}})";
constexpr std::string_view kDescribeOutput = R"({"type":"object","required":["node_id","state","capabilities"],"properties":{
"node_id":{"type":"string"},"state":{"type":"string"},"manifest_expires_at_ms":{"type":"integer"},
"capabilities":{"type":"array","items":{"type":"object"}}}})";
const std::string kCallInput = std::string(R"({"type":"object","additionalProperties":false,"required":["node_id","cap_id","verb"],
"properties":{"node_id":{"type":"string","pattern":")") + std::string(kNodeIdPattern) + R"("},
"cap_id":{"type":"string","description":"A cap_id from fleet_describe_node."},
"verb":{"type":"string","enum":["snapshot","subscribe","get","set","invoke","stream"]},
"arguments":{"type":"object","description":"Arguments matching the verb's input_schema from fleet_describe_node."}}})";

json::Value str(std::string_view s, json::Allocator& a) { return json::string_value(s, a); }

json::Value tool(std::string_view name, std::string_view title, std::string_view description, std::string_view input,
                 std::string_view output, bool read_only, McpRevision revision, json::Allocator& a) {
  json::Value v(rapidjson::kObjectType);
  v.AddMember("name", str(name, a), a);
  if (has_structured_output(revision)) v.AddMember("title", str(title, a), a);
  v.AddMember("description", str(description, a), a);
  v.AddMember("inputSchema", parse_constant(input, a), a);
  if (has_structured_output(revision) && !output.empty()) v.AddMember("outputSchema", parse_constant(output, a), a);
  json::Value ann(rapidjson::kObjectType);
  ann.AddMember("readOnlyHint", read_only, a);
  ann.AddMember("destructiveHint", !read_only, a);
  ann.AddMember("idempotentHint", read_only, a);
  ann.AddMember("openWorldHint", false, a);
  v.AddMember("annotations", ann, a);
  // No x-safety-class: fleet_call's class is that of the capability it calls (fleet_describe_node).
  json::Value meta(rapidjson::kObjectType);
  meta.AddMember(str(kStabilityMetaKey, a), str(stability_name(Stability::kStable), a), a);
  v.AddMember("_meta", meta, a);
  return v;
}

json::Document bad_arguments(std::string_view what, bool has_output_schema, McpRevision revision) {
  return tool_error(ErrorEnvelope(ErrorCode::kInvalidArguments, "invalid arguments: " + std::string(what),
                                  "fix the arguments to match the tool's inputSchema"),
                    has_output_schema, revision);
}

json::Document structured_result(const json::Value& structured, McpRevision revision) {
  return tool_success(structured, json::to_string(structured), revision);
}

std::optional<std::string_view> string_arg(const json::Value* args, std::string_view key) {
  return args && args->IsObject() ? json::get_string(*args, key) : std::nullopt;
}

// {kind: [cap_id, ...]}: which capability of each kind a tool's cap_id can name.
json::Value cap_ids_by_kind(const FleetNode& node, json::Allocator& a) {
  json::Value caps(rapidjson::kObjectType);
  for (const FleetTool& t : node.tools) {
    auto kind = caps.FindMember(rapidjson::StringRef(t.kind.data(), t.kind.size()));
    if (kind == caps.MemberEnd()) {
      caps.AddMember(str(t.kind, a), json::Value(rapidjson::kArrayType), a);
      kind = caps.MemberEnd() - 1;
    }
    json::Value& ids = kind->value;
    const auto same = [&](const json::Value& id) { return std::string_view(id.GetString(), id.GetStringLength()) == t.name.cap_id; };
    if (std::none_of(ids.Begin(), ids.End(), same)) ids.PushBack(str(t.name.cap_id, a), a);
  }
  return caps;
}

json::Value string_array(const std::vector<std::string>& items, json::Allocator& a) {
  json::Value out(rapidjson::kArrayType);
  for (const std::string& item : items) out.PushBack(str(item, a), a);
  return out;
}

std::vector<std::string> kinds_of(const FleetNode& node) {
  std::vector<std::string> kinds;
  for (const FleetTool& t : node.tools) {
    if (std::find(kinds.begin(), kinds.end(), t.kind) == kinds.end()) kinds.push_back(t.kind);
  }
  return kinds;
}

}  // namespace

json::Value parse_constant(std::string_view text, json::Allocator& a) {
  const json::Document d = json::parse_strict(text, ErrorCode::kInternal).value();
  json::Value v;
  v.CopyFrom(d, a);
  return v;
}

json::Value& capability_entry(json::Value& caps, const FleetTool& t, json::Allocator& a) {
  for (auto& c : caps.GetArray()) {
    if (c["cap_id"] == str(t.name.cap_id, a)) return c;
  }
  json::Value c(rapidjson::kObjectType), limits(rapidjson::kObjectType);
  c.AddMember("cap_id", str(t.name.cap_id, a), a);
  c.AddMember("kind", str(t.kind, a), a);
  c.AddMember("safety_class", str(safety_class_name(t.safety_class), a), a);
  limits.AddMember("rate_limit_rps", t.constraints.rate_limit_rps, a);
  limits.AddMember("max_concurrency", t.constraints.max_concurrency, a);
  limits.AddMember("deadline_ms_default", t.constraints.deadline_ms_default, a);
  c.AddMember("constraints", limits, a);
  c.AddMember("verbs", json::Value(rapidjson::kArrayType), a);
  caps.PushBack(c, a);
  return caps[caps.Size() - 1];
}

std::vector<std::string> tenant_kinds(const FleetSnapshot& fleet, std::string_view tenant) {
  std::set<std::string, std::less<>> kinds;
  for (const FleetTool* t : fleet.tools(tenant)) {
    if (!kinds.contains(t->kind)) kinds.insert(t->kind);
  }
  return {kinds.begin(), kinds.end()};
}

ErrorEnvelope unknown_kind(std::string_view kind, const std::vector<std::string>& present) {
  const std::string message = "invalid arguments at /kind: no node of yours has a capability of kind \"" +
                              ascii_clamp(kind, 40) + "\"";
  if (present.empty()) {
    return ErrorEnvelope(ErrorCode::kInvalidArguments, message + " (your nodes have no capabilities now)",
                         "leave kind out: fleet_find_nodes then lists every node of yours and its state");
  }
  std::string listed;
  for (const std::string& k : present) listed += (listed.empty() ? "" : ", ") + k;
  const auto near = nearest(kind, std::vector<std::string_view>(present.begin(), present.end()), 1);
  return ErrorEnvelope(ErrorCode::kInvalidArguments, message + "; the kinds your nodes have: " + listed,
                       near.empty() ? "use one of: " + listed
                                    : "use kind \"" + std::string(near.front()) + "\" (the nearest) or another of: " + listed);
}

json::Value CompactTools::find_nodes_tool(const std::vector<std::string>& kinds, McpRevision revision, json::Allocator& a) {
  json::Value v = tool(kFindNodesTool, "Find fleet nodes",
                       "List the devices of your fleet, optionally only those of a kind, label or state. Returns "
                       "node_id, hostname, labels, state, kinds and cap_ids (with labels) per node; page with cursor. "
                       "Devices re-sign manifests at 3/4 of their lifetime.",
                       kFindInput, kFindOutput, true, revision, a);
  // An enum without values is not a schema clients accept: with no kinds, any string (refused).
  if (!kinds.empty()) {
    json::Value values(rapidjson::kArrayType);
    for (const std::string& k : kinds) values.PushBack(str(k, a), a);
    v["inputSchema"]["properties"]["kind"].AddMember("enum", values, a);
  }
  return v;
}

std::string CompactTools::digest(const FleetSnapshot& fleet, std::string_view tenant) const {
  std::string d;
  for (const std::string& k : tenant_kinds(fleet, tenant)) d += k + "\n";
  return d;
}

std::string CompactTools::instructions() const {
  return "Tools act on the devices of your tenant's fleet through three tools: fleet_find_nodes lists your nodes, "
         "fleet_describe_node lists one node's capabilities with their verbs and argument schemas, and fleet_call "
         "runs one verb of one capability on one node. " +
         std::string(kFailureInstructions);
}

Result<json::Document> CompactTools::list(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* cursor,
                                          McpRevision revision) const {
  // One page, so no cursor is ever issued here: any cursor is refused (RFC 004 A.15).
  if (cursor != nullptr) {
    return ErrorEnvelope(ErrorCode::kBadRequest, "the cursor is not one this server issued",
                         "call tools/list without a cursor, or with the last nextCursor");
  }
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value tools(rapidjson::kArrayType);
  tools.PushBack(find_nodes_tool(tenant_kinds(fleet, tenant), revision, a), a);
  tools.PushBack(tool(kDescribeNodeTool, "Describe a fleet node",
                      "Describe one device of your fleet: each capability's cap_id, kind, safety class, limits and "
                      "verbs, with every verb's description, input schema and the scope it needs. Use it before "
                      "fleet_call.",
                      kDescribeInput, kDescribeOutput, true, revision, a),
                 a);
  tools.PushBack(tool(kFleetCallTool, "Call a capability on a node",
                      "Call verb of capability cap_id on device node_id with arguments matching that verb's input "
                      "schema (see fleet_describe_node). Physical actuation needs confirmation: the first call is "
                      "refused with a commit_token to repeat it with, inside arguments.",
                      kCallInput, "", false, revision, a),
                 a);
  d.AddMember("tools", tools, a);
  return d;
}

json::Document CompactTools::find_nodes(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* args,
                                        int64_t now_ms, McpRevision revision) const {
  if (args && args->IsObject() && args->HasMember("kind") && !string_arg(args, "kind")) {
    return bad_arguments("kind must be a string", true, revision);
  }
  const std::string kind(string_arg(args, "kind").value_or(""));
  if (!kind.empty()) {
    // A kind no node has would list no node: the model would read it as "none of them has it".
    const auto present = tenant_kinds(fleet, tenant);
    if (!std::binary_search(present.begin(), present.end(), kind)) {
      return tool_error(unknown_kind(kind, present), true, revision);
    }
  }
  const std::string state(string_arg(args, "state").value_or(""));
  if (!state.empty() && state != "online" && state != "offline" && state != "expired" && state != "revoked") {
    return bad_arguments("state must be online, offline, expired or revoked", true, revision);
  }
  if (args && args->IsObject() && args->HasMember("cap_id") && !string_arg(args, "cap_id")) {
    return bad_arguments("cap_id must be a string", true, revision);
  }
  const std::string cap_id(string_arg(args, "cap_id").value_or(""));
  if (args && args->IsObject() && args->HasMember("label") && !string_arg(args, "label")) {
    return bad_arguments("label must be a string", true, revision);
  }
  const std::string label(string_arg(args, "label").value_or(""));
  std::optional<int64_t> expiring_within_s;
  if (args && args->IsObject() && args->HasMember("expiring_within_s")) {
    expiring_within_s = json::get_int64(*args, "expiring_within_s");
    if (!expiring_within_s || *expiring_within_s < 0 || *expiring_within_s > kMaxExpiringWithinS) {
      return bad_arguments("expiring_within_s must be an integer from 0 to 31536000 (a year)", true, revision);
    }
  }
  size_t limit = kDefaultLimit;
  if (args && args->IsObject() && args->HasMember("limit")) {
    const auto l = json::get_int64(*args, "limit");
    if (!l || *l < 1 || *l > static_cast<int64_t>(kMaxLimit)) return bad_arguments("limit must be 1 to 500", true, revision);
    limit = static_cast<size_t>(*l);
  }
  const std::string context = "fleet_find_nodes\n" + kind + "\n" + state + "\n" + cap_id + "\n" +
                              (expiring_within_s ? std::to_string(*expiring_within_s) : "") + "\n" + label;
  std::string after;
  if (const auto cursor = string_arg(args, "cursor")) {
    const auto decoded = per_node_.cursors().decode(context, *cursor);
    if (!decoded) return bad_arguments("cursor is not one this query returned", true, revision);
    after = *decoded;
  }
  json::Document out(rapidjson::kObjectType);
  auto& a = out.GetAllocator();
  json::Value nodes(rapidjson::kArrayType);
  std::string last;
  bool more = false;
  for (const FleetNode* node : fleet.nodes(tenant)) {  // node_id order
    if (!after.empty() && node->node_id <= after) continue;
    const auto kinds = kinds_of(*node);
    if (!kind.empty() && std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) continue;
    if (!state.empty() && node_state_name(node->state) != state) continue;
    if (!cap_id.empty() && std::none_of(node->tools.begin(), node->tools.end(),
                                        [&](const FleetTool& t) { return t.name.cap_id == cap_id; })) {
      continue;
    }
    if (!label.empty() && std::find(node->labels.begin(), node->labels.end(), label) == node->labels.end()) continue;
    // A node with no manifest (0) has nothing to expire; one already expired is "within" any window.
    if (expiring_within_s &&
        (node->manifest_expires_at_ms == 0 || node->manifest_expires_at_ms > now_ms + *expiring_within_s * 1000)) {
      continue;
    }
    if (nodes.Size() == limit) {
      more = true;
      break;
    }
    json::Value n(rapidjson::kObjectType), k(rapidjson::kArrayType);
    n.AddMember("node_id", str(node->node_id, a), a);
    if (!node->hostname.empty()) n.AddMember("hostname", str(node->hostname, a), a);
    if (!node->labels.empty()) n.AddMember("labels", string_array(node->labels, a), a);
    n.AddMember("state", str(node_state_name(node->state), a), a);
    if (node->state_since_ms > 0) n.AddMember("state_since_ms", node->state_since_ms, a);
    if (node->manifest_expires_at_ms > 0) n.AddMember("manifest_expires_at_ms", node->manifest_expires_at_ms, a);
    for (const auto& kd : kinds) k.PushBack(str(kd, a), a);
    n.AddMember("kinds", k, a);
    n.AddMember("capabilities", cap_ids_by_kind(*node, a), a);
    if (!node->cap_labels.empty()) {
      json::Value labels(rapidjson::kObjectType);
      for (const auto& [id, text] : node->cap_labels) labels.AddMember(str(id, a), str(text, a), a);
      n.AddMember("cap_labels", labels, a);
    }
    nodes.PushBack(n, a);
    last = node->node_id;
  }
  out.AddMember("nodes", nodes, a);
  if (more) out.AddMember("next_cursor", str(per_node_.cursors().encode(context, last), a), a);
  return structured_result(out, revision);
}

json::Document CompactTools::describe_node(const FleetSnapshot& fleet, std::string_view tenant,
                                           const json::Value* args, McpRevision revision) const {
  const auto node_id = string_arg(args, "node_id");
  if (!node_id) return bad_arguments("node_id is required", true, revision);
  const FleetNode* node = fleet.node(tenant, *node_id);
  if (node == nullptr) {
    return tool_error(ErrorEnvelope(ErrorCode::kManifestNotFound, "no node " + ascii_clamp(*node_id, 32) + " is visible to you",
                                    "use fleet_find_nodes for the node_ids you can see"),
                      true, revision);
  }
  json::Document out(rapidjson::kObjectType);
  auto& a = out.GetAllocator();
  out.AddMember("node_id", str(node->node_id, a), a);
  out.AddMember("state", str(node_state_name(node->state), a), a);
  out.AddMember("manifest_expires_at_ms", node->manifest_expires_at_ms, a);
  json::Value caps(rapidjson::kArrayType);
  for (const FleetTool& t : node->tools) {
    json::Value* cap = &capability_entry(caps, t, a);
    json::Value v(rapidjson::kObjectType);
    v.AddMember("verb", str(t.name.verb, a), a);
    v.AddMember("tool", str(per_node_.presented_name(t.name), a), a);
    v.AddMember("description", str(render_description(t.verb), a), a);
    v.AddMember("required_scope", str(required_scope(t.verb_class(), t.name.verb), a), a);
    v.AddMember("two_phase", needs_commit_token(t.verb_class(), t.name.verb), a);
    v.AddMember("stability", str(stability_name(t.verb.stability), a), a);
    v.AddMember("input_schema", per_node_.input_schema_json(t, a), a);
    (*cap)["verbs"].PushBack(v, a);
  }
  out.AddMember("capabilities", caps, a);
  return structured_result(out, revision);
}

Result<ResolvedCall, CallRefusal> resolve_fleet_call(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* args) {
  const auto malformed = [](std::string_view what) {
    return CallRefusal{RefusalKind::kMalformedFleetCall,
                       ErrorEnvelope(ErrorCode::kInvalidArguments, "invalid arguments: " + std::string(what),
                                     "fix the arguments to match the tool's inputSchema"),
                       nullptr, std::string(kFleetCallTool), {}, {}};
  };
  const auto node_id = string_arg(args, "node_id");
  const auto cap_id = string_arg(args, "cap_id");
  const auto verb = string_arg(args, "verb");
  if (!node_id || !cap_id || !verb) return malformed("node_id, cap_id and verb are required");
  const json::Value* arguments = json::find(*args, "arguments");
  if (arguments != nullptr && !arguments->IsObject()) return malformed("arguments must be an object");
  // fleet_call does not name the kind_short: find the tool among the caller's own. When there is
  // none, the answer for "node/cap/verb" is exactly that of any unknown tool.
  if (const FleetNode* node = fleet.node(tenant, *node_id)) {
    for (const FleetTool& t : node->tools) {
      if (t.name.cap_id == *cap_id && t.name.verb == *verb) {
        return ResolvedCall{ResolvedCall::Action::kCall, &t, arguments, "/arguments", {}};
      }
    }
  }
  return unknown_tool(std::string(*node_id) + "/" + std::string(*cap_id) + "/" + std::string(*verb));
}

}  // namespace fleetmcp::http
