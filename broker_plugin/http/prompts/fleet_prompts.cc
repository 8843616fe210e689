#include "broker_plugin/http/prompts/fleet_prompts.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker_plugin/http/surface/compact_tools.h"
#include "broker_plugin/http/surface/fleet_read.h"
#include "broker_plugin/http/surface/tool_hints.h"
#include "common/base/text.h"

namespace fleetmcp::http {
namespace {

struct Argument {
  std::string_view name, description;
  bool required;
};
struct Prompt {
  std::string_view name, title, description;
  std::vector<Argument> arguments;
};

const std::array<Prompt, 3>& prompts() {
  static const std::array<Prompt, 3> all = {{
      {"diagnose_node", "Diagnose a node",
       "Find out what is wrong with one of your nodes: its state, then each of its read-only capabilities, health "
       "first, without changing anything.",
       {{"node_id", "The node to diagnose (fleet_find_nodes lists yours).", true}}},
      {"fleet_health_report", "Fleet health report",
       "A health report of your whole fleet: which nodes are offline, which manifests expire soon, and one "
       "capability read on every node in one call.",
       {{"kind", "The read-only kind to read on every node; system.health when left out.", false}}},
      {"safe_actuation", "Safe actuation with read-back",
       "Change one capability of one node to a desired state safely: read it, ask the user, act, read it back and "
       "compare.",
       {{"node_id", "The node to act on.", true},
        {"cap_id", "The capability of that node to change.", true},
        {"state", "The desired state, in words or as the verb's arguments (for example {\"value\": 1}).", true}}},
  }};
  return all;
}

constexpr std::string_view kDefaultReportKind = "system.health";

bool reads(const FleetTool& t) { return tool_hints(t.kind, t.safety_class, t.name.verb).read_only && t.name.verb != "subscribe"; }

// Health first, then the rest in the node's order: what a diagnosis reads first.
int read_rank(std::string_view kind) {
  static constexpr std::array<std::string_view, 5> kOrder = {"system.health", "system.metrics", "service.unit",
                                                             "logs.journal", "network.status"};
  const auto at = std::find(kOrder.begin(), kOrder.end(), kind);
  return static_cast<int>(at - kOrder.begin());
}

std::optional<std::string> argument(const json::Value* params, std::string_view name) {
  const json::Value* args = params != nullptr && params->IsObject() ? json::find(*params, "arguments") : nullptr;
  if (args == nullptr || !args->IsObject()) return std::nullopt;
  const auto v = json::get_string(*args, name);
  if (!v || v->empty()) return std::nullopt;
  return std::string(*v);
}

ErrorEnvelope invalid(std::string message) {
  return ErrorEnvelope(ErrorCode::kBadRequest, std::move(message), "completion/complete offers the values");
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

ErrorEnvelope unknown_node(const FleetSnapshot& fleet, std::string_view tenant, std::string_view node_id) {
  std::vector<std::string> ids;
  for (const FleetNode* n : fleet.nodes(tenant)) {
    if (ids.size() == 10) break;
    ids.push_back(n->node_id);
  }
  return invalid("no node of yours is \"" + ascii_clamp(node_id, 40) + "\"" +
                 (ids.empty() ? std::string(" (you have no nodes now)") : " (yours include " + joined(ids) + ")"));
}

std::string call(const ToolSurface& tools, const FleetTool& t) {
  // Appended piece by piece: GCC 12's -Wrestrict misreads a chain of + on a literal first.
  std::string out = "`";
  out += tools.call_name(t);
  out += "` with node_id \"";
  out += t.name.node_id;
  out += "\" and cap_id \"";
  out += t.name.cap_id;
  out += "\" (";
  out += t.kind;
  out += " ";
  out += t.name.verb;
  out += ")";
  return out;
}

json::Document messages(std::string_view description, const std::string& text) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("description", json::string_value(description, a), a);
  json::Value content(rapidjson::kObjectType), message(rapidjson::kObjectType), list(rapidjson::kArrayType);
  content.AddMember("type", "text", a);
  content.AddMember("text", json::string_value(text, a), a);
  message.AddMember("role", "user", a);
  message.AddMember("content", content, a);
  list.PushBack(message, a);
  d.AddMember("messages", list, a);
  return d;
}

Result<json::Document> diagnose(const ToolSurface& tools, const FleetSnapshot& fleet, std::string_view tenant,
                                const json::Value* params) {
  const auto node_id = argument(params, "node_id");
  if (!node_id) return invalid("diagnose_node needs the argument node_id");
  const FleetNode* node = fleet.node(tenant, *node_id);
  if (node == nullptr) return unknown_node(fleet, tenant, *node_id);
  std::vector<const FleetTool*> steps;
  for (const FleetTool& t : node->tools) {
    if (reads(t)) steps.push_back(&t);
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const FleetTool* x, const FleetTool* y) { return read_rank(x->kind) < read_rank(y->kind); });
  std::string text = "Diagnose my fleet node " + node->node_id + " (now " + std::string(node_state_name(node->state)) +
                     "). Only read; change nothing. Call these tools in this order:\n1. `" +
                     std::string(kFindNodesTool) +
                     "`: find this node in its answer and note its state, last seen time and manifest expiry. If it is "
                     "offline, say so, and that its reads will fail until it reconnects.\n";
  int n = 2;
  for (const FleetTool* t : steps) text += std::to_string(n++) + ". " + call(tools, *t) + ".\n";
  if (steps.empty()) text += std::to_string(n++) + ". (The node has no read-only capability to read.)\n";
  text += std::to_string(n) +
          ". Summarize: what looks wrong (high temperature, throttling, full disks, failed services, errors in the "
          "logs), what is fine, and what you would do next. Ask me before changing anything.";
  return messages("Diagnose node " + node->node_id, text);
}

Result<json::Document> health_report(const ToolSurface& tools, const FleetSnapshot& fleet, std::string_view tenant,
                                     const json::Value* params) {
  const std::string kind = argument(params, "kind").value_or(std::string(kDefaultReportKind));
  const FleetTool* sample = nullptr;
  std::set<std::string> readable;
  for (const FleetTool* t : fleet.tools(tenant)) {
    if (!reads(*t)) continue;
    readable.insert(t->kind);
    if (sample == nullptr && t->kind == kind) sample = t;
  }
  if (sample == nullptr) {
    return invalid("no node of yours has a read-only capability of kind \"" + ascii_clamp(kind, 40) + "\"" +
                   (readable.empty() ? std::string(" (you have none now)")
                                     : " (the kinds you can read: " + joined({readable.begin(), readable.end()}) + ")"));
  }
  const std::string text =
      "Write a health report of my whole fleet. Only read; change nothing. Call these tools in this order:\n1. `" +
      std::string(kFindNodesTool) +
      "`: every node with its state, last seen time and manifest expiry. Note the offline nodes and the manifests that "
      "expire within a day (a device re-signs its manifest at three quarters of its lifetime, so one that expires soon "
      "has missed that).\n2. `" +
      std::string(kFleetReadTool) + "` with kind \"" + kind +
      "\" and state \"any\": one call reads it on every node (offline nodes answer with an error instead of a "
      "result). One node alone is " +
      call(tools, *sample) +
      ".\n3. Report a table of nodes (state, the main figures of the read, problems), then the problems in order of "
      "urgency, and what you would do about each. Ask me before changing anything.";
  return messages("Fleet health report (" + kind + ")", text);
}

Result<json::Document> actuation(const ToolSurface& tools, const FleetSnapshot& fleet, std::string_view tenant,
                                 const json::Value* params) {
  const auto node_id = argument(params, "node_id");
  const auto cap_id = argument(params, "cap_id");
  const auto state = argument(params, "state");
  if (!node_id || !cap_id || !state) return invalid("safe_actuation needs the arguments node_id, cap_id and state");
  const FleetNode* node = fleet.node(tenant, *node_id);
  if (node == nullptr) return unknown_node(fleet, tenant, *node_id);
  std::vector<const FleetTool*> read, act;
  std::set<std::string> caps;
  for (const FleetTool& t : node->tools) {
    caps.insert(t.name.cap_id);
    if (t.name.cap_id != *cap_id) continue;
    (reads(t) ? read : act).push_back(&t);
  }
  if (read.empty() && act.empty()) {
    return invalid("node " + node->node_id + " has no capability \"" + ascii_clamp(*cap_id, 40) + "\" (it has " +
                   joined({caps.begin(), caps.end()}) + ")");
  }
  if (act.empty()) return invalid("capability " + *cap_id + " of node " + node->node_id + " only reads: nothing to change");
  const FleetTool& target = *act.front();
  std::string acts;
  for (const FleetTool* t : act) acts += (acts.empty() ? "" : ", or ") + call(tools, *t);
  std::string text = "Change capability " + target.name.cap_id + " (" + target.kind + ", safety class " +
                     std::string(safety_class_name(target.safety_class)) + ") of my node " + node->node_id +
                     " to this state: " + ascii_clamp(*state, 400) + ". Do it safely, in this order:\n";
  if (read.empty()) {
    text += "1. This capability has no read verb: say that its state cannot be read before or after the change.\n";
  } else {
    text += "1. Read the current state with " + call(tools, *read.front()) +
            ". If it already is the desired state, stop and tell me.\n";
  }
  text += "2. Tell me what will change (from what to what) and wait for my yes before acting.\n"
          "3. Act with " + acts +
          ", the desired state as its arguments (its input schema says which). If the server asks me to confirm, "
          "or answers with a commit_token, repeat the call with that token only after I said yes. If it refuses, "
          "follow its suggested_fix and do not retry blindly.\n";
  if (read.empty()) {
    text += "4. Report the call's result; say plainly that it could not be read back.";
  } else {
    text += "4. Read back with " + call(tools, *read.front()) +
            " and compare with the desired state. Report the state before, the action and the state after; if they "
            "differ, say so and ask me before trying again.";
  }
  return messages("Safely change " + target.name.cap_id + " of node " + node->node_id, text);
}

}  // namespace

json::Document FleetPrompts::list_result() const {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value list(rapidjson::kArrayType);
  for (const Prompt& p : prompts()) {
    json::Value v(rapidjson::kObjectType), args(rapidjson::kArrayType);
    v.AddMember("name", json::string_value(p.name, a), a);
    v.AddMember("title", json::string_value(p.title, a), a);
    v.AddMember("description", json::string_value(p.description, a), a);
    for (const Argument& arg : p.arguments) {
      json::Value x(rapidjson::kObjectType);
      x.AddMember("name", json::string_value(arg.name, a), a);
      x.AddMember("description", json::string_value(arg.description, a), a);
      x.AddMember("required", arg.required, a);
      args.PushBack(x, a);
    }
    v.AddMember("arguments", args, a);
    list.PushBack(v, a);
  }
  d.AddMember("prompts", list, a);
  return d;
}

Result<json::Document> FleetPrompts::get_result(const FleetSnapshot& fleet, std::string_view tenant,
                                                const json::Value* params) const {
  const auto name = params != nullptr && params->IsObject() ? json::get_string(*params, "name") : std::nullopt;
  if (!name) return invalid("prompts/get needs a name");
  if (*name == "diagnose_node") return diagnose(tools_, fleet, tenant, params);
  if (*name == "fleet_health_report") return health_report(tools_, fleet, tenant, params);
  if (*name == "safe_actuation") return actuation(tools_, fleet, tenant, params);
  std::string names;
  for (const Prompt& p : prompts()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return invalid("no prompt is named \"" + ascii_clamp(*name, 60) + "\" (prompts/list: " + names + ")");
}

bool FleetPrompts::exists(std::string_view name) {
  return std::any_of(prompts().begin(), prompts().end(), [name](const Prompt& p) { return p.name == name; });
}

}  // namespace fleetmcp::http
