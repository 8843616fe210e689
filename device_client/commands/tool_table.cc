#include "device_client/commands/tool_table.h"

namespace fleetmcp::device {

ToolTable ToolTable::build(const std::vector<CapabilityConfig>& caps, const KindRegistry& kinds,
                           const HandlerCatalogue& catalogue, const NodeServices& services) {
  ToolTable table;
  for (const CapabilityConfig& cap : caps) table.add_capability(cap, kinds, catalogue, services);
  return table;
}

void ToolTable::add_capability(const CapabilityConfig& cap, const KindRegistry& kinds,
                               const HandlerCatalogue& catalogue, const NodeServices& services) {
  const KindSpec* spec = kinds.by_kind(cap.kind);
  if (spec == nullptr) cap.fail("kind '" + cap.kind + "' is not in the kind registry (schemas/kinds.json)");
  auto handler = catalogue.create(cap, services);
  const CapabilityConstraints constraints = catalogue.constraints_for(cap);
  auto limit = std::make_unique<CapabilityLimit>(constraints.max_concurrency);
  Capability manifest_cap{cap.cap_id, cap.kind, spec->announced_schema_ref(), {}, handler->safety_class(), constraints};
  // A label outside manifest@1.4.0's grammar (a unit name with a backslash …) is left out.
  if (is_capability_label(handler->label())) manifest_cap.label = handler->label();
  for (const std::string& verb : handler->verbs()) {
    const VerbSpec* verb_spec = spec->verb(verb);
    if (verb_spec == nullptr) cap.fail("the registry's " + cap.kind + " has no verb '" + verb + "'");
    auto name = make_tool_name(spec->kind_short, services.node_id, cap.cap_id, verb);
    if (!name) cap.fail("projected tool name breaks RFC-0001 section 3 (64 characters at most)");
    ToolEntry entry{*name, verb, verb_spec->input_schema, verb_spec->output_schema, constraints,
                    handler.get(), limit.get()};
    tools_.emplace(name->dotted(), std::move(entry));
    manifest_cap.verbs.push_back(verb);
  }
  capabilities_.push_back(std::move(manifest_cap));
  handlers_.push_back(std::move(handler));
  limits_.push_back(std::move(limit));
}

const ToolEntry* ToolTable::find(std::string_view dotted) const {
  const auto it = tools_.find(dotted);
  return it == tools_.end() ? nullptr : &it->second;
}

bool ToolTable::has_capability(std::string_view kind_short, std::string_view cap_id) const {
  for (const auto& [dotted, entry] : tools_) {
    if (entry.name.kind_short == kind_short && entry.name.cap_id == cap_id) return true;
  }
  return false;
}

}  // namespace fleetmcp::device
