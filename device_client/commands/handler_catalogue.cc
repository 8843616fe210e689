#include "device_client/commands/handler_catalogue.h"

#include "device_client/commands/catalogue_kinds.h"
#include "device_client/handlers/echo_handler.h"
#include "device_client/handlers/metrics_handler.h"

namespace fleetmcp::device {

HandlerCatalogue HandlerCatalogue::builtin() {
  HandlerCatalogue c;
  c.add(std::string(kEchoKind), [](const CapabilityConfig& cap, const NodeServices& services) {
    reject_settings(cap);
    return std::make_unique<EchoHandler>(services);
  });
  c.add(std::string(kMetricsKind), [](const CapabilityConfig& cap, const NodeServices& services) {
    reject_settings(cap);
    return std::make_unique<MetricsHandler>(services);
  });
  add_catalogue_kinds(c);
  return c;
}

void HandlerCatalogue::add(std::string kind, HandlerFactory factory, std::optional<CapabilityConstraints> defaults) {
  if (defaults) defaults_[kind] = *defaults;
  factories_[std::move(kind)] = std::move(factory);
}

CapabilityConstraints HandlerCatalogue::constraints_for(const CapabilityConfig& cap) const {
  CapabilityConstraints c = cap.constraints;
  const auto it = defaults_.find(cap.kind);
  if (it == defaults_.end()) return c;
  if (!cap.rate_given) c.rate_limit_rps = it->second.rate_limit_rps;
  if (!cap.concurrency_given) c.max_concurrency = it->second.max_concurrency;
  if (!cap.deadline_given) c.deadline_ms_default = it->second.deadline_ms_default;
  return c;
}

std::unique_ptr<ToolHandler> HandlerCatalogue::create(const CapabilityConfig& cap,
                                                      const NodeServices& services) const {
  const auto it = factories_.find(cap.kind);
  if (it == factories_.end()) {
    cap.fail("kind '" + cap.kind + "' has no handler in this fleetmcp-device (docs/catalogue.md lists the kinds)");
  }
  return it->second(cap, services);
}

void reject_settings(const CapabilityConfig& cap) {
  if (!cap.settings.empty()) {
    cap.fail("unknown setting '" + cap.settings.front().key + "' for kind " + cap.kind +
             " (it takes only rate_limit_rps, max_concurrency, deadline_ms_default)");
  }
}

}  // namespace fleetmcp::device
