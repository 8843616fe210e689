// The running plugin as mosquitto holds it in *userdata, and the callbacks it registers. Each
// callback is a thin translation between mosquitto's event structs and FleetPlugin, and catches
// every exception: nothing may unwind into the broker's C code.
#pragma once

#include <memory>

#include "broker_plugin/core/fleet_plugin.h"
#include "broker_plugin/http/front/http_front.h"
#include "broker_plugin/adapter/plugin_fleet_view.h"
#include "broker_plugin/module/loopback_waker.h"
#include "broker_plugin/module/mosquitto_broker_port.h"

typedef struct mosquitto_plugin_id_t mosquitto_plugin_id_t;

namespace fleetmcp::plugin {

struct PluginInstance {
  mosquitto_plugin_id_t* id = nullptr;
  MosquittoBrokerPort port;
  std::unique_ptr<FleetPlugin> core;
  std::unique_ptr<LoopbackWaker> waker;
  // The agent-facing HTTP front (docs/protocol.md §7) and its view of the core; absent with http_listen off.
  std::unique_ptr<http::PluginFleetView> view;
  std::unique_ptr<http::HttpFront> front;
};

// Returns the first non-zero mosquitto error code, having unregistered what was registered.
int register_callbacks(PluginInstance& instance);
void unregister_callbacks(PluginInstance& instance);

}  // namespace fleetmcp::plugin
