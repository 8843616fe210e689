// The opt-in $CONTROL/fleetmcp/v1 test driver (plugin_opt_control_api, calls/control_api.h has the
// format): an agent's request on the control topic becomes a call through CallDispatch (kControl
// origin: the core checks its scope) or a "counters" / "nodes" answer, published straight back to
// that client on the response topic. Broker thread.
#pragma once

#include <string>
#include <string_view>

#include "broker_plugin/access/principal.h"
#include "broker_plugin/announces/node_registry.h"
#include "broker_plugin/calls/call_dispatch.h"
#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/plugin_counters.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::plugin {

class ControlDriver {
 public:
  ControlDriver(CallDispatch& calls, const NodeRegistry& registry, const SchemaRegistry& schemas,
                PluginCounters& counters, BrokerPort& broker, const PluginClock& clock);

  // A request the agent `agent` published from the client `client_id`.
  void on_request(std::string_view client_id, const Principal& agent, std::string_view payload);

 private:
  // The agent's tenant's nodes, their state and tools (the "nodes" command).
  std::string nodes_json(const Principal& agent) const;

  CallDispatch& calls_;
  const NodeRegistry& registry_;
  const SchemaRegistry& schemas_;
  PluginCounters& counters_;
  BrokerPort& broker_;
  const PluginClock& clock_;
};

}  // namespace fleetmcp::plugin
