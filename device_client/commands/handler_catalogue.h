// Which ToolHandler serves which capability kind. The built-in catalogue knows system.echo,
// system.metrics and the Doc 05 kinds (device_client/handlers/ and peripherals/, docs/catalogue.md).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "device_client/config/device_config.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

// Builds the handler of one configured capability. Throws a config error (capability.fail) for
// settings the kind does not accept.
using HandlerFactory =
    std::function<std::unique_ptr<ToolHandler>(const CapabilityConfig&, const NodeServices&)>;

class HandlerCatalogue {
 public:
  static HandlerCatalogue builtin();

  // `defaults`: the constraints a capability of this kind gets for those its line does not give
  // (hardware kinds need slower rates than the RFC-0005 nominal 10 rps).
  void add(std::string kind, HandlerFactory factory, std::optional<CapabilityConstraints> defaults = std::nullopt);
  // The capability's constraints with the kind's defaults filled in.
  CapabilityConstraints constraints_for(const CapabilityConfig& cap) const;
  // Throws a config error naming the capability line when no handler serves its kind.
  std::unique_ptr<ToolHandler> create(const CapabilityConfig& cap, const NodeServices& services) const;

 private:
  std::map<std::string, HandlerFactory, std::less<>> factories_;
  std::map<std::string, CapabilityConstraints, std::less<>> defaults_;
};

// For kinds that take no settings of their own: fails on the first one.
void reject_settings(const CapabilityConfig& cap);

}  // namespace fleetmcp::device
