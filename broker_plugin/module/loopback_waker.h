// The plugin's own MQTT client on the 127.0.0.1 listener (docs/protocol.md §6,
// docs/platform-notes.md §M3 pattern C). It does two things no broker-thread code can:
//  - wake(): a 0-byte QoS 0 publish, written to the socket by the calling thread (any thread), so
//    the broker loop turns and runs the tick now rather than within 100 ms (command round trip
//    ~0.4 ms instead of ~50 ms);
//  - on its first connection, subscribes to $devices/+/announce and $devices/+/status and hands
//    every retained message to FleetPlugin::accept_scanned: that is how announces restored from
//    persistence, which mosquitto loads without the plugin, reach re-verification. It
//    unsubscribes as soon as the SUBACK arrives (the retained messages are already queued).
// Its own thread connects with retries (listeners open only after plugin init), reads what the
// broker sends (serve_socket: CONNACK, the scan, keepalive), and stops the broker if MOSQ_EVT_TICK never arrives. All signals are blocked in it.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "broker_plugin/core/fleet_plugin.h"

struct mosquitto;
struct mosquitto_message;

namespace fleetmcp::plugin {

class LoopbackWaker : public Waker {
 public:
  static constexpr const char* kWakeTopic = "$fleetmcp/wake";

  LoopbackWaker(FleetPlugin& plugin, int port);
  ~LoopbackWaker() override;
  LoopbackWaker(const LoopbackWaker&) = delete;
  LoopbackWaker& operator=(const LoopbackWaker&) = delete;

  void start();
  void stop();  // disconnects and joins; called from mosquitto_plugin_cleanup
  void wake() override;

 private:
  void run();
  void loop();
  bool connect_once();
  int serve_socket(std::chrono::milliseconds timeout);
  void check_ticks();
  static void on_connect(struct mosquitto* client, void* self, int rc);
  static void on_subscribe(struct mosquitto* client, void* self, int mid, int count, const int* granted);
  static void on_message(struct mosquitto* client, void* self, const struct mosquitto_message* message);

  FleetPlugin& plugin_;
  int port_;
  struct mosquitto* client_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> connected_{false};
  // Held while libmosquitto reads, writes, connects or disconnects the client's socket, including
  // by wake() on the caller's thread. Without it an HTTP thread could pass the connected check,
  // the waker thread close the socket, the broker give its descriptor number to a new
  // connection, and the wake publish land in that stranger's stream. Recursive: callbacks run
  // inside mosquitto_loop_read on this thread and may publish.
  std::recursive_mutex socket_mutex_;
  bool scanned_ = false;      // client thread only
  bool tick_checked_ = false;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace fleetmcp::plugin
