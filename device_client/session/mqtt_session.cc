#include "device_client/session/mqtt_session.h"

#include <MQTTAsync.h>

#include <cstdlib>
#include <mutex>
#include <random>

#include "common/protocol/cmd.h"
#include "device_client/session/event_log.h"

namespace fleetmcp::device {
namespace {

// A connection that lived this long was healthy: the next loss starts the backoff afresh.
constexpr auto kHealthyConnection = std::chrono::seconds(30);
constexpr int kMaxQueuedPublishes = 10000;
// QoS 1 publishes in flight: at most what any common broker admits (mosquitto's default Receive
// Maximum is 20, HiveMQ's 10), still ~25 k acks/s on a 0.4 ms loopback round trip.
constexpr int kQos1Window = 10;
constexpr size_t kMaxWaitingQos1 = 10000;

// Paho C formats every MQTT packet it sends or receives into its in-memory trace ring (level
// PROTOCOL, above its default MINIMUM threshold) whether or not anyone reads it: ~17 snprintf
// calls and a global lock per echo command, a third of the device's instructions outside TLS
// (bench/profile.sh device). Keep only its errors, unless the operator asked for a Paho trace
// with MQTT_C_CLIENT_TRACE. Called after a client exists: creating the first one reads the
// environment and sets the level.
void keep_only_paho_errors() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("MQTT_C_CLIENT_TRACE") == nullptr) MQTTAsync_setTraceLevel(MQTTASYNC_TRACE_ERROR);
  });
}

uint64_t random_seed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

}  // namespace

MqttSession::MqttSession(SessionSettings settings, TimerQueue& timers, Handlers handlers)
    : settings_(std::move(settings)),
      timers_(timers),
      handlers_(std::move(handlers)),
      backoff_(settings_.reconnect_min_ms, settings_.reconnect_max_ms, random_seed()),
      // Paho queues every publish as a command until its send thread writes it, and refuses more
      // than maxBufferedMessages (default 100) with -12 even while connected: a burst of cmd_acks
      // must fit. No persistence: a cmd is never worth replaying after a restart.
      client_(settings_.server_uri, settings_.client_id, mqtt::create_options(MQTTVERSION_5, kMaxQueuedPublishes),
              nullptr) {
  keep_only_paho_errors();
  connect_options_ = make_connect_options();
  // Set on the member itself: Paho C++ 1.2.0's connect_options copies and moves leave the C
  // struct's connectProperties pointing at the source's properties, so properties set through the
  // builder dangle once the temporary is gone (a crash in MQTTProperties_copy). This member lives
  // as long as the client, so any copy Paho makes points at live properties.
  // The broker then drops anything larger than this before it reaches us (common/protocol/cmd.h).
  connect_options_.set_properties(mqtt::properties{
      {mqtt::property::MAXIMUM_PACKET_SIZE, static_cast<int32_t>(kMaxCmdParseBytes + 4096)}});
  client_.set_connected_handler([this](const std::string&) { on_connected(); });
  client_.set_connection_lost_handler([this](const std::string& cause) { on_connection_lost(cause); });
  client_.set_message_callback([this](mqtt::const_message_ptr msg) {
    if (handlers_.message) handlers_.message(msg->get_topic(), msg->get_payload_str());
  });
}

MqttSession::~MqttSession() {
  stopping_ = true;
  client_.disable_callbacks();
}

// No TLS error handler: Paho C++ 1.2.0 copies ssl_options without re-pointing the callback's
// context, so the handler would run on a destroyed object (a crash on the first TLS failure). A
// failed handshake still shows as a failed connect attempt in the log.
mqtt::connect_options MqttSession::make_connect_options() const {
  auto ssl = mqtt::ssl_options_builder()
                 .trust_store(settings_.ca_file)
                 .key_store(settings_.cert_file)
                 .private_key(settings_.key_file)
                 .enable_server_cert_auth(true)
                 .verify(true)  // the server certificate must name the host we dialled
                 .finalize();
  return mqtt::connect_options_builder()
      .mqtt_version(MQTTVERSION_5)
      .clean_start(true)
      .keep_alive_interval(std::chrono::seconds(settings_.keepalive_s))
      // Paho's default. A busy broker (thousands of nodes reconnecting at once) queues TLS
      // handshakes; giving up on one after 10 s threw the broker's work away and started over,
      // so a 10,000-node storm retried most connects and took minutes (bench/scale.sh).
      .connect_timeout(std::chrono::seconds(30))
      .automatic_reconnect(false)
      .ssl(std::move(ssl))
      .finalize();
}

void MqttSession::start(std::chrono::milliseconds delay) {
  timers_.after(delay, [this] { connect_now(); });
}

void MqttSession::connect_now() {
  if (stopping_ || connected_) return;
  // Boundary: Paho throws for a refused request (e.g. a connect already under way).
  try {
    client_.connect(connect_options_, nullptr, connect_listener_);
  } catch (const mqtt::exception& e) {
    schedule_reconnect(std::string("connect request refused: ") + e.what());
  }
}

void MqttSession::ConnectListener::on_failure(const mqtt::token& tok) {
  // rc -1 with reason 0 is a TCP or TLS failure (refused, unreachable, certificate not trusted or
  // not naming the host); a CONNACK refusal carries its MQTT 5 reason code.
  session_.schedule_reconnect("connect failed (paho rc " + std::to_string(tok.get_return_code()) +
                              ", MQTT reason " + std::to_string(int(tok.get_reason_code())) + ")");
}

void MqttSession::schedule_reconnect(const std::string& why) {
  if (stopping_) return;
  int64_t delay;
  {
    std::lock_guard lock(mutex_);
    delay = backoff_.next_delay_ms();
  }
  log_warn(settings_.client_id, "mqtt.reconnect_scheduled", why + "; next attempt in " + std::to_string(delay) + " ms");
  timers_.after(std::chrono::milliseconds(delay), [this] { connect_now(); });
}

void MqttSession::on_connected() {
  {
    std::lock_guard lock(mutex_);
    connected_since_ = std::chrono::steady_clock::now();
  }
  reset_window();
  connected_ = true;
  log_info(settings_.client_id, "mqtt.connected", settings_.server_uri);
  // Leave Paho's thread at once: subscribing and signing an announce belong on ours.
  timers_.after(std::chrono::milliseconds(0), [this] {
    if (stopping_ || !connected_) return;
    subscribe_all();
    if (handlers_.connected) handlers_.connected();
  });
}

void MqttSession::on_connection_lost(const std::string& cause) {
  connected_ = false;
  reset_window();
  if (handlers_.connection_lost) handlers_.connection_lost();
  if (stopping_) return;
  {
    std::lock_guard lock(mutex_);
    if (std::chrono::steady_clock::now() - connected_since_ >= kHealthyConnection) backoff_.reset();
  }
  schedule_reconnect("connection lost" + (cause.empty() ? std::string() : ": " + cause));
}

void MqttSession::subscribe_all() {
  for (const std::string& topic : settings_.subscriptions) {
    try {
      client_.subscribe(topic, 1);
    } catch (const mqtt::exception& e) {
      log_warn(settings_.client_id, "mqtt.subscribe_failed", topic + ": " + e.what());
    }
  }
}

mqtt::token_ptr MqttSession::begin_stop() {
  stopping_ = true;
  // A clean DISCONNECT raises no connection-lost callback: mark it here, so a second stop (the
  // fleet's, after --deregister) does not try again.
  if (!connected_.exchange(false)) return nullptr;
  try {
    return client_.disconnect(mqtt::disconnect_options(1000));
  } catch (const mqtt::exception& e) {
    log_warn(settings_.client_id, "mqtt.disconnect_failed", e.what());
    return nullptr;
  }
}

bool MqttSession::publish(const std::string& topic, const std::string& payload, int qos, bool retain) {
  if (!connected_) return false;
  if (qos == 1) return publish_qos1(topic, payload, retain);
  try {
    client_.publish(topic, payload.data(), payload.size(), qos, retain);
    return true;
  } catch (const mqtt::exception& e) {
    log_warn(settings_.client_id, "mqtt.publish_failed", topic + ": " + e.what());
    return false;
  }
}

bool MqttSession::publish_qos1(const std::string& topic, const std::string& payload, bool retain) {
  std::unique_lock lock(window_mutex_);
  if (in_flight_ >= kQos1Window) {
    if (waiting_.size() >= kMaxWaitingQos1) return false;
    waiting_.push_back({topic, payload, retain});
    return true;
  }
  ++in_flight_;
  const uint64_t epoch = epoch_;
  lock.unlock();
  return send_qos1(topic, payload, retain, epoch);  // no copy into a QueuedPublish on this path
}

bool MqttSession::send_qos1(const std::string& topic, const std::string& payload, bool retain, uint64_t epoch) {
  try {
    auto msg = mqtt::make_message(topic, payload.data(), payload.size(), 1, retain);
    client_.publish(msg, reinterpret_cast<void*>(static_cast<uintptr_t>(epoch)), delivery_listener_);
    return true;
  } catch (const mqtt::exception& e) {
    log_warn(settings_.client_id, "mqtt.publish_failed", topic + ": " + e.what());
    // Free the slot without chaining the next send: Paho is refusing (the session is going away,
    // and the reconnect resets the window), so retrying now would only recurse.
    std::lock_guard lock(window_mutex_);
    if (epoch == epoch_ && in_flight_ > 0) --in_flight_;
    return false;
  }
}

// On Paho's thread: the slot passes straight to the next waiting publish, which also wakes
// Paho's send thread at once.
void MqttSession::on_delivered(void* epoch_context) {
  const auto epoch = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(epoch_context));
  std::unique_lock lock(window_mutex_);
  if (epoch != epoch_) return;
  if (waiting_.empty()) {
    --in_flight_;
    return;
  }
  const QueuedPublish next = std::move(waiting_.front());
  waiting_.pop_front();
  lock.unlock();
  send_qos1(next.topic, next.payload, next.retain, epoch);
}

// A new connection starts with an empty window; what waited belonged to the old session, whose
// calls the gateway has already failed.
void MqttSession::reset_window() {
  std::lock_guard lock(window_mutex_);
  ++epoch_;
  in_flight_ = 0;
  waiting_.clear();
}

mqtt::token_ptr MqttSession::connect_once() {
  stopping_ = true;  // a one-shot session never reconnects
  try {
    return client_.connect(connect_options_);
  } catch (const mqtt::exception& e) {
    log_error(settings_.client_id, "mqtt.connect_failed", e.what());
    return nullptr;
  }
}

mqtt::token_ptr MqttSession::publish_once(const std::string& topic, const std::string& payload, int qos,
                                          bool retain) {
  try {
    return client_.publish(topic, payload.data(), payload.size(), qos, retain);
  } catch (const mqtt::exception& e) {
    log_error(settings_.client_id, "mqtt.publish_failed", topic + ": " + e.what());
    return nullptr;
  }
}

}  // namespace fleetmcp::device
