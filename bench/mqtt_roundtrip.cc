// mqtt_roundtrip: the raw MQTT request/response baseline for the HTTP front's tools/call figures
// (bench/http_bench.sh runs both against the same broker in the same run).
//
// Two MQTT 5 clients (libmosquitto, TCP_NODELAY, each with its own network thread), by default
// on the broker's plain listener, both authenticated as agents by the plugin: a requester publishes a
// request of about a cmd envelope's size (QoS 1) on bench/rr/<k>/req, k round robin over
// --topics, and a responder subscribed to bench/rr/+/req answers each with a reply of about a
// cmd_ack's size (QoS 1) on bench/rr/<k>/resp, which the requester is subscribed to. That is
// the MQTT part of a tools/call (broker -> device -> broker, four QoS 1 hops) without HTTP,
// the plugin's call path or JSON.
//
// TLS, so the baseline pays what a device pays: with --tls-port and --responder-bundle the
// responder connects to the mTLS device listener with a node's enrolment bundle (node.crt,
// node.key; the broker's CA from --ca), as a device does; --requester-bundle puts the requester
// there too. The bundles must be nodes no device is using (the client id is the node_id).
//
//   mqtt_roundtrip --port Q --username U --password TOKEN --rate R [--seconds S] [--warmup S]
//                  [--topics N] [--json]
//       open loop: R requests/s; latency from when a request was due to its reply.
//   mqtt_roundtrip --port Q --username U --password TOKEN --inflight K [--seconds S] [--warmup S] ...
//       closed loop: K requests outstanding at all times: the round trips/s the broker sustains.
//   --watch NAME=PID,...: also the CPU each process spent per recorded round trip.
//   --tls-port P --ca CA_FILE --responder-bundle DIR [--requester-bundle DIR]: see above.
//
// The topics need an ACL grant the shipped policy does not give (bench/http_bench.sh adds one).
#include <mosquitto.h>
#include <mqtt_protocol.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/latency_record.h"
#include "bench/load_clock.h"
#include "bench/process_usage.h"
#include "common/base/json.h"

using namespace fleetmcp;
using namespace fleetmcp::bench;

namespace {

constexpr size_t kPayloadBytes = 200;  // a cmd envelope and a cmd_ack are 170-260 bytes
constexpr int kQos = 1;

struct Options {
  int port = 0;
  std::string username, password;
  double rate = 0;
  int inflight = 0;
  double seconds = 10, warmup = 2;
  int topics = 100;
  bool json = false;
  int tls_port = 0;
  std::string ca_file, responder_bundle, requester_bundle;
  std::map<std::string, pid_t> watched;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (name == "--json") {
      o.json = true;
      continue;
    }
    if (i + 1 >= argc) throw std::runtime_error("missing value for " + name);
    const std::string value = argv[++i];
    if (name == "--port") o.port = std::stoi(value);
    else if (name == "--username") o.username = value;
    else if (name == "--password") o.password = value;
    else if (name == "--rate") o.rate = std::stod(value);
    else if (name == "--inflight") o.inflight = std::stoi(value);
    else if (name == "--seconds") o.seconds = std::stod(value);
    else if (name == "--warmup") o.warmup = std::stod(value);
    else if (name == "--topics") o.topics = std::stoi(value);
    else if (name == "--watch") o.watched = watch_list(value);
    else if (name == "--tls-port") o.tls_port = std::stoi(value);
    else if (name == "--ca") o.ca_file = value;
    else if (name == "--responder-bundle") o.responder_bundle = value;
    else if (name == "--requester-bundle") o.requester_bundle = value;
    else throw std::runtime_error("unknown option " + name);
  }
  const bool plain_needed = o.responder_bundle.empty() || o.requester_bundle.empty();
  const bool tls_needed = !o.responder_bundle.empty() || !o.requester_bundle.empty();
  if ((plain_needed && (o.port == 0 || o.username.empty())) || (tls_needed && (o.tls_port == 0 || o.ca_file.empty())) ||
      (o.rate <= 0) == (o.inflight <= 0)) {
    throw std::runtime_error(
        "usage: mqtt_roundtrip --port Q --username U --password TOKEN (--rate R | --inflight K) [--seconds S] "
        "[--warmup S] [--topics N] [--watch NAME=PID,...] [--json] "
        "[--tls-port P --ca CA_FILE --responder-bundle DIR [--requester-bundle DIR]]");
  }
  return o;
}

// A request or reply: the request's number in 8 bytes, then padding to a cmd envelope's size.
std::string payload_for(uint64_t n) {
  std::string p(kPayloadBytes, 'x');
  std::memcpy(p.data(), &n, sizeof n);
  return p;
}

uint64_t number_in(const mosquitto_message* m) {
  uint64_t n = 0;
  if (m->payloadlen >= static_cast<int>(sizeof n)) std::memcpy(&n, m->payload, sizeof n);
  return n;
}

std::string topic_of(uint64_t n, int topics, const char* leaf) {
  return "bench/rr/" + std::to_string(n % static_cast<uint64_t>(topics)) + "/" + leaf;
}

// Where one client connects: the plain listener with the agent's credentials, or the mTLS
// device listener with a node's enrolment bundle (its certificate names it; no password).
struct Endpoint {
  int port = 0;
  std::string username, password;
  std::string ca_file, bundle;  // bundle empty: plain

  static Endpoint for_client(const Options& o, const std::string& bundle) {
    if (bundle.empty()) return {.port = o.port, .username = o.username, .password = o.password};
    return {.port = o.tls_port, .ca_file = o.ca_file, .bundle = bundle};
  }
};

// One connected libmosquitto client whose messages go to `on_message` (on its network thread).
class Client {
 public:
  using OnMessage = std::function<void(const mosquitto_message*)>;

  Client(const Endpoint& at, const std::string& id, OnMessage on_message) : on_message_(std::move(on_message)) {
    // An agent's client id must start with its token's sub (the plugin refuses others); on the
    // mTLS listener the certificate names the client.
    const std::string client_id = at.bundle.empty() ? at.username + "-" + id : id;
    client_ = mosquitto_new(client_id.c_str(), true, this);
    mosquitto_int_option(client_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    mosquitto_int_option(client_, MOSQ_OPT_TCP_NODELAY, 1);
    if (at.bundle.empty()) {
      mosquitto_username_pw_set(client_, at.username.c_str(), at.password.c_str());
    } else {
      const std::string cert = at.bundle + "/node.crt", key = at.bundle + "/node.key";
      if (mosquitto_tls_set(client_, at.ca_file.c_str(), nullptr, cert.c_str(), key.c_str(), nullptr) != MOSQ_ERR_SUCCESS) {
        throw std::runtime_error("cannot load the TLS bundle " + at.bundle + " (node.crt, node.key) or " + at.ca_file);
      }
    }
    mosquitto_connect_v5_callback_set(client_, [](mosquitto*, void* self, int rc, int, const mosquitto_property*) {
      static_cast<Client*>(self)->connected(rc);
    });
    mosquitto_subscribe_v5_callback_set(client_, [](mosquitto*, void* self, int, int count, const int* granted,
                                                    const mosquitto_property*) {
      static_cast<Client*>(self)->subscribed(count > 0 ? granted[0] : 0x80);
    });
    mosquitto_message_v5_callback_set(client_, [](mosquitto*, void* self, const mosquitto_message* m,
                                                  const mosquitto_property*) { static_cast<Client*>(self)->on_message_(m); });
    if (mosquitto_connect(client_, "127.0.0.1", at.port, 60) != MOSQ_ERR_SUCCESS) {
      throw std::runtime_error("cannot connect to port " + std::to_string(at.port));
    }
    mosquitto_loop_start(client_);
    if (wait_for_answer() != 0) {
      throw std::runtime_error("CONNACK refused " + id + " (an agent token on the plain port, a node bundle on the TLS one?)");
    }
  }
  ~Client() {
    mosquitto_disconnect(client_);
    mosquitto_loop_stop(client_, false);
    mosquitto_destroy(client_);
  }

  void subscribe(const std::string& filter) {
    mosquitto_subscribe(client_, nullptr, filter.c_str(), kQos);
    if (wait_for_answer() >= 0x80) throw std::runtime_error("SUBACK refused " + filter + " (no ACL grant for bench/#?)");
  }
  void publish(const std::string& topic, const std::string& payload) {
    mosquitto_publish(client_, nullptr, topic.c_str(), static_cast<int>(payload.size()), payload.data(), kQos, false);
  }

 private:
  void connected(int rc) { answer(rc); }
  void subscribed(int granted) { answer(granted); }
  void answer(int code) {
    std::lock_guard<std::mutex> lock(mutex_);
    answer_ = code;
    cv_.notify_all();
  }
  int wait_for_answer() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_for(lock, std::chrono::seconds(5), [&] { return answer_.has_value(); })) return 0x100;
    return *std::exchange(answer_, std::nullopt);
  }

  mosquitto* client_;
  OnMessage on_message_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<int> answer_;
};

// Requests are numbered; each one's due time and answer time are kept by number.
class RoundTrips {
 public:
  explicit RoundTrips(size_t capacity) : due_(capacity, 0), answered_(capacity, 0) {}
  void sent(uint64_t n, double due_ms) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (n < due_.size()) due_[n] = due_ms;
  }
  // Returns false for a duplicate or unknown answer.
  bool answered(uint64_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (n >= answered_.size() || answered_[n] != 0) return false;
    answered_[n] = steady_ms();
    ++count_;
    cv_.notify_all();
    return true;
  }
  uint64_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }
  void wait_for(uint64_t n, double timeout_ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, std::chrono::duration<double, std::milli>(timeout_ms), [&] { return count_ >= n; });
  }
  // Latencies of requests [first, end); unanswered ones counted as failures.
  LatencyRecord record(uint64_t first, uint64_t end, double* last_answer_ms) {
    std::lock_guard<std::mutex> lock(mutex_);
    LatencyRecord r;
    for (uint64_t n = first; n < end && n < due_.size(); ++n) {
      if (answered_[n] == 0) {
        r.failed("unanswered", 0);
        continue;
      }
      r.ok(answered_[n] - due_[n]);
      *last_answer_ms = std::max(*last_answer_ms, answered_[n]);
    }
    return r;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<double> due_, answered_;
  uint64_t count_ = 0;
};

std::map<std::string, double> cpu_of(const std::map<std::string, pid_t>& watched) {
  std::map<std::string, double> out;
  for (const auto& [name, pid] : watched) out[name] = cpu_seconds(pid);
  return out;
}

int run(const Options& o) {
  const bool open_loop = o.rate > 0;
  // Enough room for the requests of the whole run (closed loop: a generous bound on the rate).
  const double max_rate = open_loop ? o.rate : 200000;
  const uint64_t capacity = static_cast<uint64_t>((o.warmup + o.seconds) * max_rate) + 16;
  RoundTrips trips(capacity);
  std::unique_ptr<Client> requester;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> sending{true};
  const auto send = [&](uint64_t n) {
    trips.sent(n, steady_ms());
    requester->publish(topic_of(n, o.topics, "req"), payload_for(n));
  };

  std::unique_ptr<Client> responder;  // answers from its own network thread
  responder = std::make_unique<Client>(Endpoint::for_client(o, o.responder_bundle), "bench-responder", [&](const mosquitto_message* m) {
    const std::string topic(m->topic);
    const std::string reply_topic = topic.substr(0, topic.size() - 3) + "resp";
    responder->publish(reply_topic, std::string(static_cast<const char*>(m->payload), static_cast<size_t>(m->payloadlen)));
  });
  responder->subscribe("bench/rr/+/req");
  requester = std::make_unique<Client>(Endpoint::for_client(o, o.requester_bundle), "bench-requester", [&](const mosquitto_message* m) {
    if (!trips.answered(number_in(m))) return;
    // Closed loop: every answer lets the next request go.
    if (!open_loop && sending.load()) send(next.fetch_add(1));
  });
  requester->subscribe("bench/rr/+/resp");

  const double start = steady_ms();
  uint64_t first_recorded = 0, end = 0;
  std::map<std::string, double> cpu_start;
  if (open_loop) {
    const double period = 1000.0 / o.rate;
    first_recorded = static_cast<uint64_t>(o.warmup * o.rate);
    end = first_recorded + static_cast<uint64_t>(o.seconds * o.rate);
    for (uint64_t n = 0; n < end; ++n) {
      if (n == first_recorded) cpu_start = cpu_of(o.watched);
      const double due = start + static_cast<double>(n) * period;
      std::this_thread::sleep_until(std::chrono::steady_clock::time_point(
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double, std::milli>(due))));
      trips.sent(n, due);  // latency from when it was due, not when the sleep returned
      requester->publish(topic_of(n, o.topics, "req"), payload_for(n));
    }
    next = end;
  } else {
    for (int i = 0; i < o.inflight; ++i) send(next.fetch_add(1));
    std::this_thread::sleep_for(std::chrono::duration<double>(o.warmup));
    cpu_start = cpu_of(o.watched);
    first_recorded = next.load();
    std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
    sending = false;
    end = next.load();
  }
  trips.wait_for(end, 5000);
  double last_answer = start;
  LatencyRecord record = trips.record(first_recorded, end, &last_answer);
  std::map<std::string, double> cpu_us_per_call = cpu_of(o.watched);
  for (auto& [name, seconds] : cpu_us_per_call) {
    seconds = 1e6 * (seconds - cpu_start[name]) / static_cast<double>(std::max<uint64_t>(1, end - first_recorded));
  }
  // Measured from the end of the warm-up (the first recorded request's due or send time).
  const double measured_s = std::max(1e-9, (last_answer - (start + o.warmup * 1000)) / 1000);
  const double per_s = static_cast<double>(record.ok_count()) / measured_s;
  if (o.json) {
    json::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("mode", rapidjson::StringRef(open_loop ? "open-loop" : "closed-loop"), a);
    doc.AddMember("api", "mqtt", a);
    doc.AddMember("responder_tls", !o.responder_bundle.empty(), a);
    doc.AddMember("requester_tls", !o.requester_bundle.empty(), a);
    if (open_loop) doc.AddMember("offered_per_s", o.rate, a);
    else doc.AddMember("connections_asked", o.inflight, a);
    doc.AddMember("ok_per_s", per_s, a);
    doc.AddMember("answered_per_s", per_s, a);
    doc.AddMember("measured_s", measured_s, a);
    json::Value cpu(rapidjson::kObjectType);
    for (const auto& [name, us] : cpu_us_per_call) cpu.AddMember(json::string_value(name, a), json::Value(us), a);
    doc.AddMember("cpu_us_per_call", cpu, a);
    record.add_to(doc, a);
    std::printf("%s\n", json::to_string(doc).c_str());
  } else {
    std::printf("mqtt %s: %llu round trips in %.1f s = %.0f/s; %s\n",
                open_loop ? ("open-loop " + std::to_string(static_cast<int>(o.rate)) + "/s").c_str()
                          : ("closed-loop x" + std::to_string(o.inflight)).c_str(),
                static_cast<unsigned long long>(record.ok_count()), measured_s, per_s, record.describe().c_str());
    for (const auto& [name, us] : cpu_us_per_call) std::printf("  %s CPU %.0f us per round trip\n", name.c_str(), us);
  }
  requester.reset();
  responder.reset();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  mosquitto_lib_init();
  try {
    const int rc = run(parse(argc, argv));
    mosquitto_lib_cleanup();
    return rc;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mqtt_roundtrip: %s\n", e.what());
    return 2;
  }
}
