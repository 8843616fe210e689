#include "broker_plugin/http/surface/fleet_read.h"

#include <algorithm>
#include <set>

#include "broker_plugin/http/surface/compact_tools.h"
#include "broker_plugin/http/surface/kind_tools.h"
#include "common/base/error_value.h"
#include "common/ids/ulid.h"

namespace fleetmcp::http {
namespace {

// The node_id pattern comes from common/ids, where is_node_id checks the same grammar.
const std::string kInput = std::string(R"({"type":"object","additionalProperties":false,"required":["kind"],"properties":{
"kind":{"type":"string","description":"The capability kind to read on every node, e.g. system.health, system.info, network.status, service.unit."},
"verb":{"type":"string","enum":["snapshot","get"],"description":"The read verb; default: the kind's own (snapshot or get)."},
"cap_id":{"type":"string","description":"Which capability of the kind, e.g. the service name for service.unit; needed only where a node has several."},
"node_ids":{"type":"array","items":{"type":"string","pattern":")") + std::string(kNodeIdPattern) + R"("},"minItems":1,"maxItems":100,"description":"These nodes; default: every node of yours with the kind."},
"state":{"type":"string","enum":["online","any"],"description":"Without node_ids: only online nodes (default) or all."},
"limit":{"type":"integer","minimum":1,"maximum":100,"description":"At most this many nodes (default 100)."},
"arguments":{"type":"object","description":"The capability's arguments (its inputSchema), the same for every node; default {}."}}})";
constexpr std::string_view kOutput = R"({"type":"object","required":["results","matched","truncated"],"properties":{
"results":{"type":"array","items":{"type":"object","required":["node_id","ok"],"properties":{
"node_id":{"type":"string"},"ok":{"type":"boolean"},"result":{"type":"object"},
"error":{"type":"object","required":["code","message"],"properties":{"code":{"type":"string"},"message":{"type":"string"},
"suggested_fix":{"type":"string"},"retry_after_ms":{"type":"integer"}}}}}},
"matched":{"type":"integer"},"truncated":{"type":"boolean"},"ok_count":{"type":"integer"},"error_count":{"type":"integer"}}})";

json::Value str(std::string_view s, json::Allocator& a) { return json::string_value(s, a); }

ErrorEnvelope invalid(std::string_view where, std::string_view what) {
  return ErrorEnvelope(ErrorCode::kManifestInvalid, "invalid arguments at " + std::string(where) + ": " + std::string(what),
                       "fix " + std::string(where) + " to match fleet_read's inputSchema");
}

struct Query {
  std::string kind, verb, cap_id;
  bool any_state = false;
};

// The node's tool the query means; nullptr with `problem` set when there is none or several.
const FleetTool* match(const FleetNode& node, const Query& q, std::string& problem) {
  std::vector<const FleetTool*> found;
  for (const FleetTool& t : node.tools) {
    if (t.kind != q.kind) continue;
    if (q.verb.empty() ? (t.name.verb != "snapshot" && t.name.verb != "get") : t.name.verb != q.verb) continue;
    if (!q.cap_id.empty() && t.name.cap_id != q.cap_id) continue;
    found.push_back(&t);
  }
  if (found.size() == 1) return found.front();
  if (found.empty()) problem = "the node has no such capability";
  else if (found.front()->name.cap_id == found.back()->name.cap_id) problem = "the kind reads with snapshot and get: pass verb";
  else problem = "the node has several capabilities of this kind: pass cap_id";
  return nullptr;
}

}  // namespace

json::Value fleet_read_tool(McpRevision revision, json::Allocator& a) {
  json::Value v(rapidjson::kObjectType);
  v.AddMember("name", str(kFleetReadTool, a), a);
  if (has_structured_output(revision)) v.AddMember("title", "Read a capability on many nodes", a);
  v.AddMember("description",
              "Run one read-only capability (kind, e.g. system.health) on many of your nodes at once: the nodes in "
              "node_ids, or every online node with that kind. Returns one entry per node with ok and its result, or "
              "its error (offline, rate limited, deadline). Each node keeps its own rate limit and deadline.",
              a);
  v.AddMember("inputSchema", parse_constant(kInput, a), a);
  if (has_structured_output(revision)) v.AddMember("outputSchema", parse_constant(kOutput, a), a);
  json::Value ann(rapidjson::kObjectType);
  ann.AddMember("readOnlyHint", true, a);
  ann.AddMember("destructiveHint", false, a);
  ann.AddMember("idempotentHint", true, a);
  ann.AddMember("openWorldHint", false, a);
  ann.AddMember("x-safety-class", "read_only", a);
  v.AddMember("annotations", ann, a);
  v.AddMember("x-safety-class", "read_only", a);
  v.AddMember("_meta", tool_meta(SafetyClass::kReadOnly, Stability::kStable, a), a);
  return v;
}

Result<FleetReadPlan> plan_fleet_read(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* args) {
  static const json::Value kEmpty(rapidjson::kObjectType);
  if (args == nullptr) args = &kEmpty;
  if (!args->IsObject()) return invalid("the top level", "arguments must be an object");
  for (const auto& m : args->GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key != "kind" && key != "verb" && key != "cap_id" && key != "node_ids" && key != "state" && key != "limit" &&
        key != "arguments") {
      return invalid(std::string("/").append(ascii_clamp(key, 40)), "is not an argument of fleet_read");
    }
  }
  Query q;
  const auto kind = json::get_string(*args, "kind");
  if (!kind) return invalid("/kind", "a kind string is required");
  q.kind = *kind;
  // A kind none of the tenant's nodes has would read no node: refused once, with the kinds present.
  if (const auto present = tenant_kinds(fleet, tenant); !std::binary_search(present.begin(), present.end(), q.kind)) {
    return unknown_kind(q.kind, present);
  }
  if (const json::Value* verb = json::find(*args, "verb")) {
    if (!verb->IsString()) return invalid("/verb", "must be snapshot or get");
    q.verb = verb->GetString();
    if (q.verb != "snapshot" && q.verb != "get") {
      return ErrorEnvelope(ErrorCode::kSafetyDenied, "fleet_read runs read verbs only (snapshot, get)",
                           "call the by_kind tool node by node for anything that changes a device");
    }
  }
  if (const json::Value* cap = json::find(*args, "cap_id")) {
    if (!cap->IsString()) return invalid("/cap_id", "must be a string");
    q.cap_id = cap->GetString();
  }
  if (const json::Value* state = json::find(*args, "state")) {
    if (!state->IsString() || (std::string_view(state->GetString()) != "online" && std::string_view(state->GetString()) != "any")) {
      return invalid("/state", "must be online or any");
    }
    q.any_state = std::string_view(state->GetString()) == "any";
  }
  size_t limit = kFleetReadMax;
  if (json::find(*args, "limit") != nullptr) {
    const auto l = json::get_int64(*args, "limit");
    if (!l || *l < 1 || *l > static_cast<int64_t>(kFleetReadMax)) return invalid("/limit", "must be an integer from 1 to 100");
    limit = static_cast<size_t>(*l);
  }
  FleetReadPlan plan;
  if (const json::Value* a = json::find(*args, "arguments")) {
    if (!a->IsObject()) return invalid("/arguments", "must be an object");
    plan.arguments = a;
  }
  std::vector<FleetReadTarget> all;
  if (const json::Value* ids = json::find(*args, "node_ids")) {
    if (!ids->IsArray() || ids->Empty() || ids->Size() > kFleetReadMax) return invalid("/node_ids", "must list 1 to 100 node_ids");
    std::set<std::string> unique;
    for (rapidjson::SizeType i = 0; i < ids->Size(); ++i) {
      const json::Value& id = (*ids)[i];
      if (!id.IsString() || !is_node_id(std::string_view(id.GetString(), id.GetStringLength()))) return invalid("/node_ids/" + std::to_string(i), "must be a node_id (ULID, lowercase)");
      unique.insert(id.GetString());
    }
    for (const std::string& id : unique) {
      // Another tenant's node is answered exactly like a node that does not exist.
      FleetReadTarget t{id, nullptr, "no node of yours with this node_id has such a capability"};
      if (const FleetNode* node = fleet.node(tenant, id)) t.tool = match(*node, q, t.problem);
      all.push_back(std::move(t));
    }
  } else {
    for (const FleetNode* node : fleet.nodes(tenant)) {
      if (!q.any_state && node->state != NodeState::kOnline) continue;
      std::string problem;
      const FleetTool* tool = match(*node, q, problem);
      if (tool == nullptr && problem == "the node has no such capability") continue;  // not a node of this kind
      all.push_back(FleetReadTarget{node->node_id, tool, std::move(problem)});
    }
  }
  plan.matched = all.size();
  if (all.size() > limit) all.resize(limit);
  plan.targets = std::move(all);
  return plan;
}

ErrorEnvelope fleet_read_arguments_refused(const FleetTool& tool, const ErrorEnvelope& gate_error) {
  return ErrorEnvelope(ErrorCode::kManifestInvalid, gate_error.message,
                       "fix that argument: fleet_read passes `arguments` unchanged to " + tool.kind + " " + tool.name.verb +
                           " on every node, whose input schema is the `arguments` of " +
                           kind_tool_name(tool) + " (" + tool.verb.input_schema +
                           "); no node was called");
}

FleetReadResults::FleetReadResults(const FleetReadPlan& plan) : matched_(plan.matched) {
  for (const FleetReadTarget& t : plan.targets) entries_.push_back(Entry{t.node_id, false, {}, {ErrorCode::kInternal, "no answer", ""}});
}

void FleetReadResults::set_result(size_t index, std::string_view result_json) {
  entries_[index].ok = true;
  entries_[index].result_json = result_json;
}

void FleetReadResults::set_error(size_t index, const ErrorEnvelope& error) {
  entries_[index].ok = false;
  entries_[index].error = error;
}

json::Document FleetReadResults::document() const {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value results(rapidjson::kArrayType);
  int64_t ok = 0;
  for (const Entry& e : entries_) {
    json::Value r(rapidjson::kObjectType);
    r.AddMember("node_id", str(e.node_id, a), a);
    r.AddMember("ok", e.ok, a);
    if (e.ok) {
      ++ok;
      r.AddMember("result", parse_constant(e.result_json, a), a);
    } else {
      r.AddMember("error", error_value(e.error, a), a);
    }
    results.PushBack(r, a);
  }
  d.AddMember("results", results, a);
  d.AddMember("matched", static_cast<int64_t>(matched_), a);
  d.AddMember("truncated", matched_ > entries_.size(), a);
  d.AddMember("ok_count", ok, a);
  d.AddMember("error_count", static_cast<int64_t>(entries_.size()) - ok, a);
  return d;
}

}  // namespace fleetmcp::http
