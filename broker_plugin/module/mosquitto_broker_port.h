// BrokerPort on top of mosquitto's plugin API. Broker thread only, like everything it calls.
#pragma once

#include "broker_plugin/base/broker_port.h"

namespace fleetmcp::plugin {

class MosquittoBrokerPort : public BrokerPort {
 public:
  void publish(std::string_view client_id, std::string_view topic, std::string_view payload, int qos,
               bool retain) override;
  void publish_expiring(std::string_view client_id, std::string_view topic, std::string_view payload, int qos,
                        uint32_t expiry_s) override;
  void kick(std::string_view client_id) override;
  void log(LogLevel level, std::string_view line) override;
  std::optional<Certificate> client_certificate(const void* handle) override;
};

}  // namespace fleetmcp::plugin
