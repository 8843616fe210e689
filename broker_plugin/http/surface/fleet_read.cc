#include "broker_plugin/http/surface/fleet_read.h"

#include <rapidjson/pointer.h>

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
"kind":{"type":"string","description":"The kind to read, e.g. system.health or service.unit."},
"verb":{"type":"string","enum":["snapshot","get"],"description":"The read verb; default: the kind's own (snapshot or get)."},
"cap_id":{"type":"string","description":"Which capability of the kind, where a node has several."},
"node_ids":{"type":"array","items":{"type":"string","pattern":")") + std::string(kNodeIdPattern) + R"("},"minItems":1,"maxItems":100,"description":"These nodes; default: every node of yours with the kind."},
"state":{"type":"string","enum":["online","any"],"description":"Without node_ids: only online nodes (default) or all."},
"limit":{"type":"integer","minimum":1,"maximum":100,"description":"At most this many nodes (default 100)."},
"arguments":{"type":"object","description":"The capability's arguments (its inputSchema), the same for every node; default {}."},
"fields":{"type":"array","items":{"type":"string","pattern":"^/"},"maxItems":16,"description":"Only these JSON pointers of each result (values)."},
"sort_by":{"type":"string","pattern":"^/","description":"Order nodes by this JSON pointer of the result."},
"order":{"type":"string","enum":["desc","asc"]},
"top":{"type":"integer","minimum":1,"maximum":100,"description":"Only the first nodes."}}})";
constexpr std::string_view kOutput = R"({"type":"object","required":["results","matched","truncated"],"properties":{
"results":{"type":"array","items":{"type":"object","required":["node_id","ok"],"properties":{
"node_id":{"type":"string"},"ok":{"type":"boolean"},"result":{"type":"object"},"values":{"type":"object"},
"error":{"type":"object","required":["code","message"]}}}},
"matched":{"type":"integer"},"truncated":{"type":"boolean"},"ok_count":{"type":"integer"},"error_count":{"type":"integer"}}})";

json::Value str(std::string_view s, json::Allocator& a) { return json::string_value(s, a); }

ErrorEnvelope invalid(std::string_view where, std::string_view what) {
  return ErrorEnvelope(ErrorCode::kInvalidArguments, "invalid arguments at " + std::string(where) + ": " + std::string(what),
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

constexpr size_t kMaxFields = 16;

// The value at an RFC 6901 JSON pointer into a result; nullptr when it names nothing.
const json::Value* at_pointer(const json::Value& root, std::string_view pointer) {
  const rapidjson::Pointer p(pointer.data(), pointer.size());
  return p.IsValid() ? p.Get(root) : nullptr;
}

// fields, sort_by, order and top (FleetReadShape).
Result<FleetReadShape> read_shape(const json::Value& args) {
  FleetReadShape shape;
  const auto pointer = [](const json::Value& v) {
    return v.IsString() && v.GetStringLength() > 0 && v.GetString()[0] == '/' &&
           rapidjson::Pointer(v.GetString(), v.GetStringLength()).IsValid();
  };
  if (const json::Value* fields = json::find(args, "fields")) {
    if (!fields->IsArray() || fields->Empty() || fields->Size() > kMaxFields) {
      return invalid("/fields", "must list 1 to 16 JSON pointers into the result, e.g. [\"/cpu_temperature_celsius\"]");
    }
    for (rapidjson::SizeType i = 0; i < fields->Size(); ++i) {
      if (!pointer((*fields)[i])) return invalid("/fields/" + std::to_string(i), "must be a JSON pointer starting with /");
      shape.fields.emplace_back((*fields)[i].GetString(), (*fields)[i].GetStringLength());
    }
  }
  if (const json::Value* sort_by = json::find(args, "sort_by")) {
    if (!pointer(*sort_by)) return invalid("/sort_by", "must be a JSON pointer starting with /, e.g. /cpu_temperature_celsius");
    shape.sort_by.assign(sort_by->GetString(), sort_by->GetStringLength());
  }
  if (const json::Value* order = json::find(args, "order")) {
    if (!order->IsString() || (std::string_view(order->GetString()) != "asc" && std::string_view(order->GetString()) != "desc")) {
      return invalid("/order", "must be desc or asc");
    }
    shape.ascending = std::string_view(order->GetString()) == "asc";
  }
  if (json::find(args, "top") != nullptr) {
    const auto top = json::get_int64(args, "top");
    if (!top || *top < 1 || *top > static_cast<int64_t>(kFleetReadMax)) return invalid("/top", "must be an integer from 1 to 100");
    shape.top = static_cast<size_t>(*top);
  }
  return shape;
}

// Whether a's sort value comes before b's: numbers by value, strings by bytes, numbers before
// strings; `ascending` false reverses the order of values, never that of a missing one (last).
bool sorts_before(const json::Value* a, const json::Value* b, bool ascending) {
  const auto rank = [](const json::Value* v) { return v == nullptr ? 2 : v->IsNumber() ? 0 : v->IsString() ? 1 : 2; };
  if (rank(a) != rank(b)) return rank(a) < rank(b);
  if (rank(a) == 2) return false;
  const bool less = rank(a) == 0 ? a->GetDouble() < b->GetDouble()
                                 : std::string_view(a->GetString(), a->GetStringLength()) <
                                       std::string_view(b->GetString(), b->GetStringLength());
  const bool greater = rank(a) == 0 ? b->GetDouble() < a->GetDouble()
                                    : std::string_view(b->GetString(), b->GetStringLength()) <
                                          std::string_view(a->GetString(), a->GetStringLength());
  return ascending ? less : greater;
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
        key != "arguments" && key != "fields" && key != "sort_by" && key != "order" && key != "top") {
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
  if (auto shape = read_shape(*args); !shape) {
    return shape.error();
  } else {
    plan.shape = std::move(*shape);
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
  return ErrorEnvelope(ErrorCode::kInvalidArguments, gate_error.message,
                       "fix that argument: fleet_read passes `arguments` unchanged to " + tool.kind + " " + tool.name.verb +
                           " on every node, whose input schema is the `arguments` of " +
                           kind_tool_name(tool) + " (" + tool.verb.input_schema +
                           "); no node was called");
}

FleetReadResults::FleetReadResults(const FleetReadPlan& plan) : matched_(plan.matched), shape_(plan.shape) {
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
  // Each ok result parsed once: sorting and field selection read it.
  std::vector<json::Value> parsed(entries_.size());
  std::vector<size_t> order(entries_.size());
  int64_t ok = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    order[i] = i;
    if (!entries_[i].ok) continue;
    ++ok;
    parsed[i] = parse_constant(entries_[i].result_json, a);
  }
  if (!shape_.sort_by.empty()) {
    const auto key = [&](size_t i) { return entries_[i].ok ? at_pointer(parsed[i], shape_.sort_by) : nullptr; };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return sorts_before(key(x), key(y), shape_.ascending); });
  }
  if (shape_.top > 0 && order.size() > shape_.top) order.resize(shape_.top);
  json::Value results(rapidjson::kArrayType);
  for (const size_t i : order) {
    const Entry& e = entries_[i];
    json::Value r(rapidjson::kObjectType);
    r.AddMember("node_id", str(e.node_id, a), a);
    r.AddMember("ok", e.ok, a);
    if (!e.ok) {
      r.AddMember("error", error_value(e.error, a), a);
    } else if (shape_.fields.empty()) {
      r.AddMember("result", parsed[i], a);
    } else {
      json::Value values(rapidjson::kObjectType);
      for (const std::string& field : shape_.fields) {
        json::Value v;  // null: the result has nothing there
        if (const json::Value* found = at_pointer(parsed[i], field)) v.CopyFrom(*found, a);
        if (json::find(values, field) == nullptr) values.AddMember(str(field, a), v, a);
      }
      r.AddMember("values", values, a);
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
