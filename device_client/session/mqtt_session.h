// One node's MQTT 5 session over mutual TLS, on Paho's async client (docs/protocol.md §2). Paho C runs one
// send and one receive thread for every client of the process, so a thousand simulated sessions
// add sockets, not threads. Reconnection is ours rather than Paho's: Paho's automatic reconnect
// has no jitter, and a fleet that reconnects in lockstep after a broker restart is a stampede.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <mqtt/async_client.h>

#include "device_client/session/reconnect_backoff.h"
#include "device_client/session/timer_queue.h"

namespace fleetmcp::device {

struct SessionSettings {
  std::string client_id;   // the node_id (the broker enforces use_username_as_clientid)
  std::string server_uri;  // ssl://host:port; the host is what the server certificate must name
  std::string key_file, cert_file, ca_file;
  int keepalive_s = 30;
  int64_t reconnect_min_ms = 2000, reconnect_max_ms = 60000;
  std::vector<std::string> subscriptions;  // QoS 1, made again on every connect (clean start)
};

class MqttSession {
 public:
  struct Handlers {
    std::function<void()> connected;  // runs on the TimerQueue thread after subscribing
    std::function<void(const std::string& topic, const std::string& payload)> message;  // Paho thread
    std::function<void()> connection_lost;  // Paho thread, after the last message of the session
  };

  MqttSession(SessionSettings settings, TimerQueue& timers, Handlers handlers);
  ~MqttSession();
  MqttSession(const MqttSession&) = delete;
  MqttSession& operator=(const MqttSession&) = delete;

  // First connection attempt after `delay`; from then on the session keeps itself connected.
  void start(std::chrono::milliseconds delay);
  // No reconnection from now on; sends DISCONNECT if connected. Returns the token to wait on (or
  // nullptr) so a fleet can disconnect all its sessions at once and then wait.
  mqtt::token_ptr begin_stop();

  bool is_connected() const { return connected_.load(); }
  // Fire-and-forget; false when not connected or Paho refused (the caller decides whether that
  // matters: telemetry is QoS 0 anyway, and a cmd of a dropped session is failed by the gateway).
  // QoS 1 publishes pass through a window of kQos1Window in flight, the rest wait here in order:
  // Paho C 1.3 parks a publish the broker's Receive Maximum does not admit and only retries it
  // when its send thread wakes, up to a second later; a PUBACK does not wake it, but handing it
  // the next publish from the PUBACK callback does.
  bool publish(const std::string& topic, const std::string& payload, int qos, bool retain);

  // One-shot use (--deregister), without the reconnect machinery: a connect and a publish whose
  // tokens the caller waits on, so a fleet can run each step for all its nodes at once (Paho C
  // only looks at a new socket when its receive thread's poll returns, up to a second later).
  // nullptr when Paho refused the request (logged).
  mqtt::token_ptr connect_once();
  mqtt::token_ptr publish_once(const std::string& topic, const std::string& payload, int qos, bool retain);

 private:
  class ConnectListener : public mqtt::iaction_listener {
   public:
    explicit ConnectListener(MqttSession& session) : session_(session) {}
    void on_failure(const mqtt::token& tok) override;
    void on_success(const mqtt::token&) override {}

   private:
    MqttSession& session_;
  };
  // Frees a QoS 1 window slot when the broker acknowledges (or Paho gives up on) a publish.
  class DeliveryListener : public mqtt::iaction_listener {
   public:
    explicit DeliveryListener(MqttSession& session) : session_(session) {}
    void on_failure(const mqtt::token& tok) override { session_.on_delivered(tok.get_user_context()); }
    void on_success(const mqtt::token& tok) override { session_.on_delivered(tok.get_user_context()); }

   private:
    MqttSession& session_;
  };
  struct QueuedPublish {
    std::string topic, payload;
    bool retain = false;
  };

  mqtt::connect_options make_connect_options() const;
  void connect_now();
  void schedule_reconnect(const std::string& why);
  void on_connected();
  void on_connection_lost(const std::string& cause);
  void subscribe_all();
  bool publish_qos1(const std::string& topic, const std::string& payload, bool retain);
  bool send_qos1(const std::string& topic, const std::string& payload, bool retain, uint64_t epoch);
  void on_delivered(void* epoch_context);
  void reset_window();

  const SessionSettings settings_;
  TimerQueue& timers_;
  const Handlers handlers_;
  mqtt::connect_options connect_options_;
  ConnectListener connect_listener_{*this};
  DeliveryListener delivery_listener_{*this};
  std::atomic<bool> connected_{false}, stopping_{false};
  std::mutex mutex_;  // guards backoff_ and connected_since_
  ReconnectBackoff backoff_;
  std::chrono::steady_clock::time_point connected_since_{};
  std::mutex window_mutex_;  // guards the QoS 1 window below
  std::deque<QueuedPublish> waiting_;
  int in_flight_ = 0;
  uint64_t epoch_ = 1;  // one per connection: a late callback of an old one frees nothing
  // Last, so it is destroyed first: nothing Paho might still call back into is gone before it.
  mqtt::async_client client_;
};

}  // namespace fleetmcp::device
