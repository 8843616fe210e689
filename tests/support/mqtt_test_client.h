// A blocking MQTT 5 client for the plugin's integration test programs, on libmosquitto with its
// own network thread. Every call waits for the broker's answer (CONNACK, SUBACK, PUBACK reason
// code) so a test asserts exactly what a user's client would see.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

struct mosquitto;
struct mosquitto_message;
typedef struct mqtt5__property mosquitto_property;

namespace fleetmcp::testing {

struct Received {
  std::string topic, payload;
  bool retain = false;
};

struct ClientOptions {
  std::string client_id;
  std::string host = "127.0.0.1";
  int port = 0;
  std::string username, password;              // plain listener
  std::string ca_file, cert_file, key_file;    // TLS device listener
  bool clean_start = true;
  std::optional<Received> will;                // QoS 1
  int keepalive_s = 30;
};

class MqttTestClient {
 public:
  static constexpr int kTimedOut = -1;
  static constexpr std::chrono::milliseconds kWait{3000};

  explicit MqttTestClient(ClientOptions options);
  ~MqttTestClient();
  MqttTestClient(const MqttTestClient&) = delete;
  MqttTestClient& operator=(const MqttTestClient&) = delete;

  // CONNACK reason code (0 = accepted), kTimedOut, or a negative libmosquitto error.
  int connect();
  // SUBACK: the granted QoS (0..2) or a reason code >= 0x80.
  int subscribe(const std::string& filter, int qos = 1);
  // PUBACK reason code for QoS 1 (0 = accepted, 0x87 = not authorised).
  int publish(const std::string& topic, const std::string& payload, int qos = 1, bool retain = false);
  // Messages are kept in arrival order; wait_for takes the first one on `topic`.
  std::optional<Received> wait_for(const std::string& topic, std::chrono::milliseconds timeout = kWait);
  bool connected() const;
  // Graceful DISCONNECT (Will discarded) or one that asks the broker to send the Will (MQTT 5 0x04).
  void disconnect(bool send_will = false);
  // Waits until the broker closes the connection.
  bool wait_disconnected(std::chrono::milliseconds timeout = kWait);
  void clear_received();

 private:
  static void on_connect(struct mosquitto*, void* self, int rc, int flags, const mosquitto_property*);
  static void on_disconnect(struct mosquitto*, void* self, int rc, const mosquitto_property*);
  static void on_subscribe(struct mosquitto*, void* self, int mid, int count, const int* granted,
                           const mosquitto_property*);
  static void on_publish(struct mosquitto*, void* self, int mid, int reason, const mosquitto_property*);
  static void on_message(struct mosquitto*, void* self, const struct mosquitto_message*, const mosquitto_property*);
  int wait_result(std::map<int, int>& results, int mid);

  ClientOptions options_;
  struct mosquitto* client_ = nullptr;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<int> connack_;
  bool connected_ = false;
  std::map<int, int> subacks_, pubacks_;
  std::deque<Received> received_;
};

}  // namespace fleetmcp::testing
