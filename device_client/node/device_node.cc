#include "device_client/node/device_node.h"

#include <random>

#include "common/ids/ulid.h"
#include "common/protocol/topics.h"
#include "device_client/session/event_log.h"
#include "device_client/node/hw_fingerprint.h"
#include "device_client/host/metrics_sample.h"
#include "device_client/host/system_facts.h"

namespace fleetmcp::device {
namespace {

// A refused publish of the announce is retried this soon rather than at the next refresh.
constexpr int64_t kAnnounceRetryMs = 5000;

std::chrono::milliseconds random_below(int64_t bound_ms) {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  return std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(0, std::max<int64_t>(0, bound_ms - 1))(random));
}

std::string quoted_field(const json::Value& doc, std::string_view key) {
  std::string out(1, '"');
  out += json::get_string(doc, key).value_or("");
  out += '"';
  return out;
}

}  // namespace

NodeTopics::NodeTopics(const std::string& id)
    : announce(devices_topic(id, DeviceLeaf::kAnnounce)),
      telemetry(devices_topic(id, DeviceLeaf::kTelemetry)),
      cmd(devices_topic(id, DeviceLeaf::kCmd)),
      cmd_ack(devices_topic(id, DeviceLeaf::kCmdAck)),
      rejected(devices_topic(id, DeviceLeaf::kRejected)),
      status(devices_topic(id, DeviceLeaf::kStatus)) {}

DeviceNode::DeviceNode(DeviceConfig config, const SharedRuntime& runtime, bool simulated)
    : config_(std::move(config)),
      simulated_(simulated),
      runtime_(runtime),
      topics_(config_.node_id),
      identity_(load_node_identity(config_, now_ms())),
      cadence_(config_.telemetry_interval_ms),
      services_(make_services()),
      tools_(ToolTable::build(config_.capabilities, runtime_.schemas->kinds(), *runtime_.catalogue, services_)),
      signer_(identity_, tools_,
              simulated ? simulated_fingerprint_sources(config_.node_id) : read_hw_fingerprint_sources(),
              config_.manifest_ttl_s * 1000, announced_hostname(), config_.labels),
      dispatcher_(config_.node_id, tools_,
                  [schemas = runtime_.schemas](std::string_view id, const json::Value& doc) {
                    return schemas->validate(id, doc);
                  },
                  *runtime_.workers, *runtime_.timers, [this](const std::string& ack) { send_ack(ack); }, &audit_),
      session_(session_settings(), *runtime_.timers,
               {[this] { on_connected(); },
                [this](const std::string& topic, const std::string& payload) { on_message(topic, payload); },
                [this] { dispatcher_.forget_plugin_time(); }}) {
  signer_.check(*runtime_.schemas, config_.file);
}

std::string DeviceNode::announced_hostname() const {
  if (!config_.hostname.empty()) return config_.hostname;
  // The simulated nodes of one process share a host: a name of their own tells them apart.
  if (simulated_) return "sim-" + config_.node_id.substr(config_.node_id.size() - 6);
  return read_hostname("");
}

NodeServices DeviceNode::make_services() {
  NodeServices s;
  s.node_id = config_.node_id;
  s.host_metrics = runtime_.host_metrics;
  s.telemetry = &cadence_;
  s.telemetry_changed = [this] { restart_telemetry(std::chrono::milliseconds(0)); };
  s.test_hooks = runtime_.test_hooks;
  s.timers = runtime_.timers;
  s.simulated = simulated_;
  s.started_at_ms = runtime_.started_at_ms;
  s.capability_count = config_.capabilities.size();
  s.audit = &audit_;
  return s;
}

SessionSettings DeviceNode::session_settings() const {
  SessionSettings s;
  s.client_id = config_.node_id;
  s.server_uri = config_.paho_uri;
  s.key_file = config_.key_file;
  s.cert_file = config_.cert_file;
  s.ca_file = config_.ca_file;
  s.keepalive_s = static_cast<int>(config_.keepalive_s);
  s.reconnect_min_ms = config_.reconnect_min_ms;
  s.reconnect_max_ms = config_.reconnect_max_ms;
  s.subscriptions = {topics_.cmd, topics_.rejected, topics_.status};
  return s;
}

void DeviceNode::start(std::chrono::milliseconds initial_delay) {
  log_info(node_id(), "node.starting", std::to_string(tools_.size()) + " tools, broker " + config_.broker_uri);
  session_.start(initial_delay);
}

mqtt::token_ptr DeviceNode::begin_stop() {
  ++announce_generation_;
  ++telemetry_generation_;
  return session_.begin_stop();
}

// Runs on the TimerQueue thread after every (re)connect: the broker may have lost the retained
// announce (a restart without persistence) and the old one may be close to expiry anyway.
void DeviceNode::on_connected() {
  if (deregistering_) return;
  publish_announce();
  restart_telemetry(random_below(cadence_.current(now_ms()).interval_ms));
}

void DeviceNode::publish_announce() {
  const SignedAnnounce announce = signer_.sign(now_ms());
  const uint64_t generation = ++announce_generation_;
  if (!session_.publish(topics_.announce, announce.bytes, 1, true)) {
    log_warn(node_id(), "announce.not_sent", "not connected; retrying in 5 s");
    schedule_announce_refresh(generation, kAnnounceRetryMs);
    return;
  }
  log_info(node_id(), "announce.published",
           "etag=" + announce.etag + " issued_at_ms=" + std::to_string(announce.issued_at_ms) +
               " expires_at_ms=" + std::to_string(announce.expires_at_ms));
  // Re-sign when a quarter of the TTL remains: well before the plugin would expire it (D7).
  schedule_announce_refresh(generation, signer_.ttl_ms() - signer_.ttl_ms() / 4);
}

void DeviceNode::schedule_announce_refresh(uint64_t generation, int64_t delay_ms) {
  runtime_.timers->after(std::chrono::milliseconds(delay_ms), [this, generation] {
    // A newer announce (reconnect) or a stop has taken over; a disconnected node re-announces on
    // its next connect.
    if (generation != announce_generation_.load() || !session_.is_connected()) return;
    publish_announce();
  });
}

void DeviceNode::restart_telemetry(std::chrono::milliseconds first_delay) {
  const uint64_t generation = ++telemetry_generation_;
  runtime_.timers->after(first_delay, [this, generation] { telemetry_tick(generation); });
}

void DeviceNode::telemetry_tick(uint64_t generation) {
  if (generation != telemetry_generation_.load()) return;
  const int64_t now = now_ms();
  const TelemetryCadence::Current cadence = cadence_.current(now);
  if (session_.is_connected()) {
    const json::Document sample = metrics_sample_json(runtime_.host_metrics->sample(), node_id(), cadence.parts);
    session_.publish(topics_.telemetry, json::to_string(sample), 0, false);
  }
  int64_t next = cadence.interval_ms;
  const int64_t lease_left = cadence_.lease_remaining_ms(now);
  if (lease_left > 0 && lease_left < next) next = lease_left;  // back to the base cadence on time
  runtime_.timers->after(std::chrono::milliseconds(next), [this, generation] { telemetry_tick(generation); });
}

void DeviceNode::on_message(const std::string& topic, const std::string& payload) {
  if (topic == topics_.cmd) {
    dispatcher_.on_cmd(payload);
  } else if (topic == topics_.rejected) {
    on_rejected(payload);
  } else if (topic == topics_.status) {
    on_status(payload);
  } else {
    log_debug(node_id(), "mqtt.unexpected_message", topic);
  }
}

// The plugin explains a refused announce once per refusal; the same refusal repeats on every
// refresh, so only a new one is logged at ERROR and repeats go to DEBUG.
void DeviceNode::on_rejected(const std::string& payload) {
  std::string what, etag;
  if (const auto doc = json::parse_strict(payload, ErrorCode::kBadRequest, {64 * 1024, 8})) {
    what = "code=" + std::string(json::get_string(*doc, "code").value_or("?")) +
           " message=" + quoted_field(*doc, "message") + " suggested_fix=" + quoted_field(*doc, "suggested_fix");
    etag = std::string(json::get_string(*doc, "etag").value_or("?"));
  } else {
    what = "unreadable rejection envelope (" + doc.error().message + ")";
  }
  const std::string line = what + (etag.empty() ? "" : " etag=" + etag);
  {
    std::lock_guard lock(rejection_mutex_);
    if (what == last_rejection_) {
      log_debug(node_id(), "announce.rejected_again", line);
      return;
    }
    last_rejection_ = what;
  }
  log_error(node_id(), "announce.rejected", "the broker refused this node's manifest: " + line);
}

// The plugin publishes this node's status `online` as its session starts, with since_ms on the
// plugin's clock: a plugin timestamp from before the first cmd, so a cmd that arrives late is
// recognised even when it is the first (docs/protocol.md §4.3 step 5). Other states say nothing
// about this session.
void DeviceNode::on_status(const std::string& payload) {
  const auto doc = json::parse_strict(payload, ErrorCode::kBadRequest, {4 * 1024, 4});
  if (!doc) {  // a cleared (empty) retained status, or not the plugin's JSON
    log_debug(node_id(), "status.ignored", doc.error().message);
    return;
  }
  const auto since_ms = json::get_int64(*doc, "since_ms");
  if (since_ms && json::get_string(*doc, "state") == std::optional<std::string_view>("online")) {
    dispatcher_.on_plugin_time(*since_ms);
  }
}

void DeviceNode::send_ack(const std::string& ack) {
  if (!session_.publish(topics_.cmd_ack, ack, 1, false)) {
    log_warn(node_id(), "cmd_ack.not_sent", "the session refused it (see mqtt.publish_failed); the gateway fails the call");
  }
}

mqtt::token_ptr DeviceNode::begin_deregister() {
  deregistering_ = true;
  return session_.connect_once();
}

mqtt::token_ptr DeviceNode::clear_announce() { return session_.publish_once(topics_.announce, std::string(), 1, true); }

}  // namespace fleetmcp::device
