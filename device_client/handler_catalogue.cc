#include "device_client/handler_catalogue.h"

#include "device_client/echo_handler.h"
#include "device_client/metrics_handler.h"

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
  return c;
}

void HandlerCatalogue::add(std::string kind, HandlerFactory factory) {
  factories_[std::move(kind)] = std::move(factory);
}

std::unique_ptr<ToolHandler> HandlerCatalogue::create(const CapabilityConfig& cap,
                                                      const NodeServices& services) const {
  const auto it = factories_.find(cap.kind);
  if (it == factories_.end()) {
    cap.fail("kind '" + cap.kind + "' has no handler in this fleetmcp-device (known: system.echo, system.metrics)");
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
