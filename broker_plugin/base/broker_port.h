// The broker as the plugin core sees it. The module implements it with mosquitto_* calls
// (mosquitto_broker_port.cc); unit tests implement it with a recording fake. Every method is
// called on the broker thread only: no mosquitto broker function is thread-safe
// (docs/platform-notes.md §M3).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "common/crypto/x509.h"

namespace fleetmcp::plugin {

enum class LogLevel { kInfo, kNotice, kWarning, kError };

// The core's clock: milliseconds since the epoch (the module's system clock; a test sets its own).
using PluginClock = std::function<int64_t()>;

class BrokerPort {
 public:
  virtual ~BrokerPort() = default;

  // Empty client_id: routed through the subscriptions, ACL READ checked per subscriber.
  // Otherwise straight to that client (no subscription, no READ check; dropped when offline).
  virtual void publish(std::string_view client_id, std::string_view topic, std::string_view payload, int qos,
                       bool retain) = 0;
  // The same, not retained, with the MQTT 5 message expiry interval: the broker drops the message
  // once `expiry_s` seconds have passed, also while it waits in a client's queue.
  virtual void publish_expiring(std::string_view client_id, std::string_view topic, std::string_view payload,
                                int qos, uint32_t expiry_s) = 0;
  virtual void kick(std::string_view client_id) = 0;
  virtual void log(LogLevel level, std::string_view line) = 0;
  // The certificate the TLS client behind `handle` presented; nullopt without one.
  virtual std::optional<Certificate> client_certificate(const void* handle) = 0;
};

// The core's answer to a broker event: MOSQ_ERR_SUCCESS / MOSQ_ERR_ACL_DENIED (or MOSQ_ERR_AUTH) /
// MOSQ_ERR_PLUGIN_DEFER.
enum class Verdict { kAllow, kDeny, kDefer };

// What the callbacks tell the core about the client behind an event.
struct ClientView {
  const void* handle = nullptr;  // the broker's struct mosquitto*, an identity only
  std::string_view id, username, address;
  // 0 for the zeroed stand-in client mosquitto builds for check_retain_source (retain.c): it
  // carries only the id and username of the retained message's original publisher.
  int protocol_version = 0;
  bool clean_session = true;  // read for BASIC_AUTH only (ClientIdClaims)
};

}  // namespace fleetmcp::plugin
