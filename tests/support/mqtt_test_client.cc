#include "tests/support/mqtt_test_client.h"

#include <mosquitto.h>
#include <mqtt_protocol.h>

#include <stdexcept>

namespace fleetmcp::testing {
namespace {

struct LibraryInit {
  LibraryInit() { mosquitto_lib_init(); }
};

}  // namespace

MqttTestClient::MqttTestClient(ClientOptions options) : options_(std::move(options)) {
  static LibraryInit init;
  client_ = mosquitto_new(options_.client_id.empty() ? nullptr : options_.client_id.c_str(), options_.clean_start, this);
  if (client_ == nullptr) throw std::runtime_error("mosquitto_new failed");
  mosquitto_int_option(client_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
  mosquitto_int_option(client_, MOSQ_OPT_TCP_NODELAY, 1);
  if (!options_.username.empty()) {
    mosquitto_username_pw_set(client_, options_.username.c_str(),
                              options_.password.empty() ? nullptr : options_.password.c_str());
  }
  if (!options_.ca_file.empty()) {
    mosquitto_tls_set(client_, options_.ca_file.c_str(), nullptr,
                      options_.cert_file.empty() ? nullptr : options_.cert_file.c_str(),
                      options_.key_file.empty() ? nullptr : options_.key_file.c_str(), nullptr);
  }
  if (options_.will) {
    mosquitto_will_set_v5(client_, options_.will->topic.c_str(), static_cast<int>(options_.will->payload.size()),
                          options_.will->payload.data(), 1, options_.will->retain, nullptr);
  }
  mosquitto_connect_v5_callback_set(client_, &MqttTestClient::on_connect);
  mosquitto_disconnect_v5_callback_set(client_, &MqttTestClient::on_disconnect);
  mosquitto_subscribe_v5_callback_set(client_, &MqttTestClient::on_subscribe);
  mosquitto_publish_v5_callback_set(client_, &MqttTestClient::on_publish);
  mosquitto_message_v5_callback_set(client_, &MqttTestClient::on_message);
}

MqttTestClient::~MqttTestClient() {
  mosquitto_disconnect(client_);
  mosquitto_loop_stop(client_, true);
  mosquitto_destroy(client_);
}

int MqttTestClient::connect() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    connack_.reset();
  }
  // MQTT 5 keeps a session past the connection only with a session expiry interval.
  mosquitto_property* properties = nullptr;
  if (!options_.clean_start) mosquitto_property_add_int32(&properties, MQTT_PROP_SESSION_EXPIRY_INTERVAL, 300);
  const int rc = mosquitto_connect_bind_v5(client_, options_.host.c_str(), options_.port, options_.keepalive_s,
                                           nullptr, properties);
  mosquitto_property_free_all(&properties);
  if (rc != MOSQ_ERR_SUCCESS) return -rc;
  // The network thread starts once the socket is up, so it never retries a failed connect.
  mosquitto_loop_start(client_);
  std::unique_lock<std::mutex> lock(mutex_);
  if (!changed_.wait_for(lock, kWait, [&] { return connack_.has_value(); })) return kTimedOut;
  return *connack_;
}

int MqttTestClient::wait_result(std::map<int, int>& results, int mid) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!changed_.wait_for(lock, kWait, [&] { return results.count(mid) != 0 || !connected_; })) return kTimedOut;
  if (results.count(mid) == 0) return kTimedOut;  // the broker closed the connection
  const int result = results[mid];
  results.erase(mid);
  return result;
}

int MqttTestClient::subscribe(const std::string& filter, int qos) {
  int mid = 0;
  if (mosquitto_subscribe_v5(client_, &mid, filter.c_str(), qos, 0, nullptr) != MOSQ_ERR_SUCCESS) return kTimedOut;
  return wait_result(subacks_, mid);
}

int MqttTestClient::publish(const std::string& topic, const std::string& payload, int qos, bool retain) {
  int mid = 0;
  const int rc = mosquitto_publish_v5(client_, &mid, topic.c_str(), static_cast<int>(payload.size()),
                                      payload.empty() ? nullptr : payload.data(), qos, retain, nullptr);
  if (rc != MOSQ_ERR_SUCCESS) return kTimedOut;
  if (qos == 0) return 0;
  return wait_result(pubacks_, mid);
}

std::optional<Received> MqttTestClient::wait_for(const std::string& topic, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  std::optional<Received> found;
  changed_.wait_for(lock, timeout, [&] {
    for (auto it = received_.begin(); it != received_.end(); ++it) {
      if (it->topic != topic) continue;
      found = std::move(*it);
      received_.erase(it);
      return true;
    }
    return false;
  });
  return found;
}

bool MqttTestClient::connected() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return connected_;
}

void MqttTestClient::disconnect(bool send_will) {
  if (send_will) {
    mosquitto_disconnect_v5(client_, MQTT_RC_DISCONNECT_WITH_WILL_MSG, nullptr);
  } else {
    mosquitto_disconnect(client_);
  }
  wait_disconnected();
}

bool MqttTestClient::wait_disconnected(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return !connected_; });
}

void MqttTestClient::clear_received() {
  std::lock_guard<std::mutex> lock(mutex_);
  received_.clear();
}

void MqttTestClient::on_connect(struct mosquitto*, void* self, int rc, int, const mosquitto_property*) {
  auto* c = static_cast<MqttTestClient*>(self);
  std::lock_guard<std::mutex> lock(c->mutex_);
  c->connack_ = rc;
  c->connected_ = rc == 0;
  c->changed_.notify_all();
}

void MqttTestClient::on_disconnect(struct mosquitto* client, void* self, int, const mosquitto_property*) {
  auto* c = static_cast<MqttTestClient*>(self);
  {
    std::lock_guard<std::mutex> lock(c->mutex_);
    c->connected_ = false;
    if (!c->connack_) c->connack_ = 0x87;  // closed before CONNACK: refused
    c->changed_.notify_all();
  }
  // A test decides when to reconnect; stop the loop thread's automatic retries.
  mosquitto_disconnect(client);
}

void MqttTestClient::on_subscribe(struct mosquitto*, void* self, int mid, int count, const int* granted,
                                  const mosquitto_property*) {
  auto* c = static_cast<MqttTestClient*>(self);
  std::lock_guard<std::mutex> lock(c->mutex_);
  c->subacks_[mid] = count > 0 ? granted[0] : 0x80;
  c->changed_.notify_all();
}

void MqttTestClient::on_publish(struct mosquitto*, void* self, int mid, int reason, const mosquitto_property*) {
  auto* c = static_cast<MqttTestClient*>(self);
  std::lock_guard<std::mutex> lock(c->mutex_);
  c->pubacks_[mid] = reason;
  c->changed_.notify_all();
}

void MqttTestClient::on_message(struct mosquitto*, void* self, const struct mosquitto_message* m,
                                const mosquitto_property*) {
  auto* c = static_cast<MqttTestClient*>(self);
  std::lock_guard<std::mutex> lock(c->mutex_);
  c->received_.push_back({m->topic, std::string(static_cast<const char*>(m->payload), m->payloadlen), m->retain});
  c->changed_.notify_all();
}

}  // namespace fleetmcp::testing
