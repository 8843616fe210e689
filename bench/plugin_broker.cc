// Figures through a real broker (run by bench/plugin_bench.sh, which starts the brokers):
//   plugin_broker announces   --pki D --tls-port P --plain-port Q --node ID [--count N]
//       N distinct signed manifests from one node, QoS 1 pipelined: verified announces per second.
//   plugin_broker reannounces --pki D --tls-port P --plain-port Q --node ID [--count N]
//       the same manifest N times: known-etag re-announces per second.
//   plugin_broker telemetry   --pki D --tls-port P --plain-port Q --node ID --token T
//                             [--count N] [--subscribers M]
//       N telemetry samples from one node, QoS 1 pipelined, to M agents subscribed to
//       $devices/+/telemetry: deliveries per second. Run against a broker with the plugin and one
//       without it, the ratio is the plugin's cost (docs/protocol.md §10 target >= 0.85).
#include <mosquitto.h>
#include <mqtt_protocol.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/support/fleet_test_env.h"

using namespace fleetmcp;
using namespace fleetmcp::testing;
using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

namespace {

// A raw libmosquitto client that counts acknowledgements and deliveries.
class CountingClient {
 public:
  explicit CountingClient(const ClientOptions& o) {
    client_ = mosquitto_new(o.client_id.empty() ? nullptr : o.client_id.c_str(), true, this);
    mosquitto_int_option(client_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    mosquitto_int_option(client_, MOSQ_OPT_TCP_NODELAY, 1);
    if (!o.username.empty()) mosquitto_username_pw_set(client_, o.username.c_str(), o.password.c_str());
    if (!o.ca_file.empty()) {
      mosquitto_tls_set(client_, o.ca_file.c_str(), nullptr, o.cert_file.c_str(), o.key_file.c_str(), nullptr);
    }
    mosquitto_publish_v5_callback_set(client_, [](mosquitto*, void* self, int, int reason, const mosquitto_property*) {
      auto* c = static_cast<CountingClient*>(self);
      (reason < 0x80 ? c->acked : c->refused).fetch_add(1);
    });
    mosquitto_message_v5_callback_set(client_, [](mosquitto*, void* self, const mosquitto_message*,
                                                  const mosquitto_property*) {
      auto* c = static_cast<CountingClient*>(self);
      if (c->received.fetch_add(1) == 0) c->first_at = SteadyClock::now();
      c->last_at = SteadyClock::now();
    });
    if (mosquitto_connect(client_, o.host.c_str(), o.port, 60) != MOSQ_ERR_SUCCESS) {
      throw std::runtime_error("cannot connect to port " + std::to_string(o.port));
    }
    mosquitto_loop_start(client_);
  }
  ~CountingClient() {
    mosquitto_disconnect(client_);
    mosquitto_loop_stop(client_, false);
    mosquitto_destroy(client_);
  }
  void subscribe(const std::string& filter) { mosquitto_subscribe(client_, nullptr, filter.c_str(), 0); }
  void publish(const std::string& topic, const std::string& payload, bool retain) {
    mosquitto_publish(client_, nullptr, topic.c_str(), static_cast<int>(payload.size()), payload.data(), 1, retain);
  }
  // Waits until `done` holds or nothing changed for two seconds.
  void wait(const std::function<bool()>& done) {
    uint64_t seen = ~0ull;
    auto quiet_since = SteadyClock::now();
    while (!done()) {
      const uint64_t now_seen = acked + refused + received;
      if (now_seen != seen) {
        seen = now_seen;
        quiet_since = SteadyClock::now();
      } else if (SteadyClock::now() - quiet_since > 2s) {
        return;
      }
      std::this_thread::sleep_for(1ms);
    }
  }

  std::atomic<uint64_t> acked{0}, refused{0}, received{0};
  SteadyClock::time_point first_at, last_at;

 private:
  mosquitto* client_;
};

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

int announces(const ToolArgs& args, bool same_manifest) {
  const Broker broker = Broker::from(args);
  const NodeBundle node = load_bundle(args.require("pki"), args.require("node"));
  const int count = args.number("count", 5000);
  const int64_t base = now_ms();
  std::vector<std::string> manifests;
  for (int i = 0; i < (same_manifest ? 1 : count); ++i) manifests.push_back(sign(node, example_manifest(node, base + i)));
  CountingClient c(broker.node(node));
  const std::string topic = devices_topic(node.node_id, "announce");
  c.publish(topic, manifests[0], true);  // warm-up: the first one is verified in either mode
  c.wait([&] { return c.acked + c.refused >= 1; });
  const auto start = SteadyClock::now();
  for (int i = 0; i < count; ++i) c.publish(topic, manifests[same_manifest ? 0 : i], true);
  c.wait([&] { return c.acked + c.refused >= static_cast<uint64_t>(count) + 1; });
  const double s = seconds_since(start);
  std::printf("%s: %d announces in %.3f s = %.0f/s accepted, %llu refused\n",
              same_manifest ? "known-etag re-announces" : "verified announces", count, s, (c.acked - 1) / s,
              static_cast<unsigned long long>(c.refused.load()));
  return c.refused == 0 ? 0 : 1;
}

int telemetry(const ToolArgs& args) {
  const Broker broker = Broker::from(args);
  const NodeBundle node = load_bundle(args.require("pki"), args.require("node"));
  const int count = args.number("count", 100000);
  const int subscribers = args.number("subscribers", 2);
  std::vector<std::unique_ptr<CountingClient>> agents;
  for (int i = 0; i < subscribers; ++i) {
    agents.push_back(std::make_unique<CountingClient>(broker.agent("claude", args.require("token"))));
    agents.back()->subscribe("$devices/+/telemetry");
  }
  std::this_thread::sleep_for(300ms);
  CountingClient publisher(broker.node(node));
  const std::string topic = devices_topic(node.node_id, "telemetry");
  const std::string sample = R"({"ts_ms":1763800000000,"node_id":")" + node.node_id +
                             R"(","cpu":{"usage_pct":3.5},"mem":{"used_bytes":123456789}})";
  const auto start = SteadyClock::now();
  for (int i = 0; i < count; ++i) {
    publisher.publish(topic, sample, false);
    // Keep libmosquitto's own queue short so the broker, not the client, is what is measured.
    while (i - static_cast<int>(publisher.acked + publisher.refused) > 1000) std::this_thread::sleep_for(50us);
  }
  publisher.wait([&] { return publisher.acked + publisher.refused >= static_cast<uint64_t>(count); });
  const double publish_s = seconds_since(start);
  uint64_t delivered = 0;
  for (auto& a : agents) {
    a->wait([&] { return a->received >= static_cast<uint64_t>(count); });
    delivered += a->received;
  }
  std::printf("telemetry: %d samples to %d subscribers in %.3f s: %.0f published/s, %.0f delivered/s (%llu of %llu)\n",
              count, subscribers, publish_s, count / publish_s, delivered / publish_s,
              static_cast<unsigned long long>(delivered), static_cast<unsigned long long>(count) * subscribers);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: plugin_broker announces|reannounces|telemetry --pki D --tls-port P ...\n");
    return 2;
  }
  mosquitto_lib_init();
  try {
    const std::string mode = argv[1];
    const ToolArgs args(argc - 1, argv + 1);
    if (mode == "announces") return announces(args, false);
    if (mode == "reannounces") return announces(args, true);
    if (mode == "telemetry") return telemetry(args);
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "plugin_broker: %s\n", e.what());
    return 2;
  }
}
