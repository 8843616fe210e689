// A node's projected tools (RFC-0001 §3): one entry per capability × verb, keyed by the dotted
// name, with the handler, the schemas the kind registry names for that verb, the capability's
// constraints and its concurrency limit. The manifest's capabilities come from the same table, so
// a node can only ever be asked for what it announced.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/registry/kinds.h"
#include "common/protocol/manifest.h"
#include "device_client/commands/capability_limit.h"
#include "device_client/config/device_config.h"
#include "device_client/commands/handler_catalogue.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

struct ToolEntry {
  ToolName name;
  std::string verb;
  std::string input_schema, output_schema;  // full mcp://schemas/…@x.y.z ids
  CapabilityConstraints constraints;
  ToolHandler* handler = nullptr;
  CapabilityLimit* limit = nullptr;  // shared by the verbs of one capability
};

class ToolTable {
 public:
  // Throws a config error naming the capability line when its kind is not in the registry, its
  // handler offers a verb the kind does not have, or a projected name breaks the 64-char budget.
  static ToolTable build(const std::vector<CapabilityConfig>& caps, const KindRegistry& kinds,
                         const HandlerCatalogue& catalogue, const NodeServices& services);

  // By dotted name; nullptr when this node has no such tool.
  const ToolEntry* find(std::string_view dotted) const;
  // True when `cap_id` is one of this node's capabilities (to tell "no such verb" from "no such tool").
  bool has_capability(std::string_view kind_short, std::string_view cap_id) const;
  // The manifest's capability list, in config order.
  const std::vector<Capability>& capabilities() const { return capabilities_; }
  size_t size() const { return tools_.size(); }

 private:
  void add_capability(const CapabilityConfig& cap, const KindRegistry& kinds,
                      const HandlerCatalogue& catalogue, const NodeServices& services);

  std::vector<std::unique_ptr<ToolHandler>> handlers_;
  std::vector<std::unique_ptr<CapabilityLimit>> limits_;
  std::map<std::string, ToolEntry, std::less<>> tools_;
  std::vector<Capability> capabilities_;
};

}  // namespace fleetmcp::device
