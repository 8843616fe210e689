// Include order of mosquitto's own plugins: 2.0.11's mosquitto_plugin.h does not include
// mosquitto_broker.h (GitHub #2350), so the broker header comes first.
#include <mosquitto_broker.h>
#include <mosquitto_plugin.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <openssl/x509.h>

#include "broker_plugin/module/mosquitto_broker_port.h"

#include <string>

namespace fleetmcp::plugin {
namespace {

int mosquitto_level(LogLevel level) {
  switch (level) {
    case LogLevel::kInfo: return MOSQ_LOG_INFO;
    case LogLevel::kNotice: return MOSQ_LOG_NOTICE;
    case LogLevel::kWarning: return MOSQ_LOG_WARNING;
    case LogLevel::kError: return MOSQ_LOG_ERR;
  }
  return MOSQ_LOG_INFO;
}

// A NUL-terminated copy of text for mosquitto's C API: on the stack when it is short, as the
// client ids and topics of a publish are (two allocations per cmd otherwise).
class CString {
 public:
  explicit CString(std::string_view text) {
    if (text.size() < sizeof inline_) {
      text.copy(inline_, text.size());
      inline_[text.size()] = '\0';
      chars_ = inline_;
    } else {
      long_.assign(text);
      chars_ = long_.c_str();
    }
  }
  CString(const CString&) = delete;
  CString& operator=(const CString&) = delete;
  const char* c_str() const { return chars_; }

 private:
  char inline_[128];
  std::string long_;
  const char* chars_;
};

// `properties` (may be null) belong to the broker once it accepts the message; freed here otherwise.
void publish_copy(std::string_view client_id, std::string_view topic, std::string_view payload, int qos, bool retain,
                  mosquitto_property* properties) {
  const CString id(client_id), t(topic);
  // _copy: the non-copying variant frees the buffer with free() (GitHub #2524, #3146).
  const int rc = mosquitto_broker_publish_copy(client_id.empty() ? nullptr : id.c_str(), t.c_str(),
                                               static_cast<int>(payload.size()),
                                               payload.empty() ? nullptr : payload.data(), qos, retain, properties);
  if (rc != MOSQ_ERR_SUCCESS) mosquitto_property_free_all(&properties);
}

}  // namespace

void MosquittoBrokerPort::publish(std::string_view client_id, std::string_view topic, std::string_view payload,
                                  int qos, bool retain) {
  publish_copy(client_id, topic, payload, qos, retain, nullptr);
}

// A property passed to mosquitto_broker_publish is enforced (docs/platform-notes.md §M4): the broker
// stores the expiry time with the message and drops it instead of sending it once it has passed,
// including from the queue of a client whose in-flight window is full.
void MosquittoBrokerPort::publish_expiring(std::string_view client_id, std::string_view topic,
                                           std::string_view payload, int qos, uint32_t expiry_s) {
  mosquitto_property* properties = nullptr;
  if (mosquitto_property_add_int32(&properties, MQTT_PROP_MESSAGE_EXPIRY_INTERVAL, expiry_s) != MOSQ_ERR_SUCCESS) {
    mosquitto_property_free_all(&properties);  // out of memory: send it without, as before
  }
  publish_copy(client_id, topic, payload, qos, false, properties);
}

void MosquittoBrokerPort::kick(std::string_view client_id) {
  // No Will: a kicked client is one whose credentials stopped being trusted.
  mosquitto_kick_client_by_clientid(std::string(client_id).c_str(), false);
}

void MosquittoBrokerPort::log(LogLevel level, std::string_view line) {
  mosquitto_log_printf(mosquitto_level(level), "%.*s", static_cast<int>(line.size()), line.data());
}

std::optional<Certificate> MosquittoBrokerPort::client_certificate(const void* handle) {
  // A new reference (SSL_get_peer_certificate), released here; Certificate takes its own.
  auto* cert = static_cast<X509*>(mosquitto_client_certificate(static_cast<const struct mosquitto*>(handle)));
  if (cert == nullptr) return std::nullopt;
  auto copy = Certificate::from_x509(cert);
  X509_free(cert);
  if (!copy) {  // refused as a client without a certificate; the log says why
    log(LogLevel::kWarning, "fleetmcp: unreadable client certificate: " + copy.error().summary());
    return std::nullopt;
  }
  return std::move(*copy);
}

}  // namespace fleetmcp::plugin
