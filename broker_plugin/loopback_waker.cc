#include <mosquitto.h>

#include "broker_plugin/loopback_waker.h"

#include <csignal>
#include <cstdio>
#include <pthread.h>
#include <unistd.h>

namespace fleetmcp::plugin {
namespace {

constexpr auto kTickGrace = std::chrono::seconds(5);
const char* const kScanTopics[] = {"$devices/+/announce", "$devices/+/status"};

}  // namespace

LoopbackWaker::LoopbackWaker(FleetPlugin& plugin, int port) : plugin_(plugin), port_(port) {
  mosquitto_lib_init();
  const auto& credentials = plugin_.waker_credentials();
  client_ = mosquitto_new(credentials.username.c_str(), true, this);
  if (client_ == nullptr) throw Error(ErrorCode::kInternal, "cannot create the loopback waker client", "out of memory?");
  mosquitto_username_pw_set(client_, credentials.username.c_str(), credentials.secret.c_str());
  mosquitto_int_option(client_, MOSQ_OPT_TCP_NODELAY, 1);
  mosquitto_threaded_set(client_, true);  // publish() comes from other threads than the loop
  mosquitto_connect_callback_set(client_, &LoopbackWaker::on_connect);
  mosquitto_subscribe_callback_set(client_, &LoopbackWaker::on_subscribe);
  mosquitto_message_callback_set(client_, &LoopbackWaker::on_message);
}

LoopbackWaker::~LoopbackWaker() {
  stop();
  mosquitto_destroy(client_);
  // No mosquitto_lib_cleanup(): it unloads OpenSSL modules the broker itself still uses.
}

void LoopbackWaker::start() {
  started_ = std::chrono::steady_clock::now();
  // The thread inherits the signal mask: with everything blocked, SIGHUP/SIGTERM/SIGINT always
  // reach the broker's main thread and interrupt its epoll_wait.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  thread_ = std::thread([this] { run(); });
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

void LoopbackWaker::stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
}

void LoopbackWaker::wake() {
  if (connected_.load(std::memory_order_acquire)) {
    mosquitto_publish(client_, nullptr, kWakeTopic, 0, nullptr, 0, false);
  }
}

void LoopbackWaker::run() {
  pthread_setname_np(pthread_self(), "fleetmcp-waker");  // for top -H, perf, bench/profile.sh
  try {
    loop();
  } catch (const std::exception& e) {  // a thread boundary: nothing may escape it
    std::fprintf(stderr, "fleetmcp: loopback waker stopped: %s\n", e.what());
  }
}

void LoopbackWaker::loop() {
  while (!stopping_.load()) {
    check_ticks();
    if (!connected_.load() && !connect_once()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (const int rc = mosquitto_loop(client_, 100, 1); rc != MOSQ_ERR_SUCCESS) {
      std::fprintf(stderr, "fleetmcp: loopback waker lost its connection (%s), reconnecting\n",
                   mosquitto_strerror(rc));
      connected_.store(false, std::memory_order_release);
      mosquitto_disconnect(client_);
    }
  }
  if (connected_.exchange(false)) {
    mosquitto_disconnect(client_);
    mosquitto_loop(client_, 10, 1);  // flush the DISCONNECT
  }
}

bool LoopbackWaker::connect_once() {
  if (mosquitto_connect(client_, "127.0.0.1", port_, 60) != MOSQ_ERR_SUCCESS) return false;
  connected_.store(true, std::memory_order_release);
  return true;
}

// per_listener_settings true makes 2.0.11 skip MOSQ_EVT_TICK entirely (fixed in 2.0.15): no
// sweeps, no command dispatch. The plugin's config check normally refuses that at start; this
// is the safety net. It writes to stderr: mosquitto_log_printf is broker-thread only.
void LoopbackWaker::check_ticks() {
  if (tick_checked_ || std::chrono::steady_clock::now() - started_ < kTickGrace) return;
  tick_checked_ = true;
  if (plugin_.ticks() > 0) return;
  std::fprintf(stderr,
               "fleetmcp: no MOSQ_EVT_TICK within 5 s of start (is per_listener_settings true?); stopping the "
               "broker\n");
  kill(getpid(), SIGTERM);
}

void LoopbackWaker::on_connect(struct mosquitto* client, void* self, int rc) {
  auto* waker = static_cast<LoopbackWaker*>(self);
  if (rc != 0 || waker->scanned_) return;  // scanned once per broker run; retried until a SUBACK
  mosquitto_subscribe_multiple(client, nullptr, 2, const_cast<char* const*>(kScanTopics), 0, 0, nullptr);
}

void LoopbackWaker::on_subscribe(struct mosquitto* client, void* self, int, int, const int*) {
  static_cast<LoopbackWaker*>(self)->scanned_ = true;
  // The retained messages were queued behind the SUBACK; later announces need not come here.
  mosquitto_unsubscribe_multiple(client, nullptr, 2, const_cast<char* const*>(kScanTopics), nullptr);
}

void LoopbackWaker::on_message(struct mosquitto*, void* self, const struct mosquitto_message* message) {
  if (!message->retain || message->payloadlen <= 0) return;
  auto* waker = static_cast<LoopbackWaker*>(self);
  waker->plugin_.accept_scanned(message->topic,
                                std::string(static_cast<const char*>(message->payload), message->payloadlen));
  waker->wake();  // let the tick verify it now
}

}  // namespace fleetmcp::plugin
