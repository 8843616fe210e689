// Which ToolHandler serves which capability kind. The built-in catalogue knows system.echo and
// system.metrics; the Doc 05 kinds register here too.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "device_client/device_config.h"
#include "device_client/tool_handler.h"

namespace fleetmcp::device {

// Builds the handler of one configured capability. Throws a config error (capability.fail) for
// settings the kind does not accept.
using HandlerFactory =
    std::function<std::unique_ptr<ToolHandler>(const CapabilityConfig&, const NodeServices&)>;

class HandlerCatalogue {
 public:
  static HandlerCatalogue builtin();

  void add(std::string kind, HandlerFactory factory);
  // Throws a config error naming the capability line when no handler serves its kind.
  std::unique_ptr<ToolHandler> create(const CapabilityConfig& cap, const NodeServices& services) const;

 private:
  std::map<std::string, HandlerFactory, std::less<>> factories_;
};

// For kinds that take no settings of their own: fails on the first one.
void reject_settings(const CapabilityConfig& cap);

}  // namespace fleetmcp::device
