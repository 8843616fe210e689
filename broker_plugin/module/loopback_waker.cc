#include <mosquitto.h>

#include "broker_plugin/module/loopback_waker.h"

#include <poll.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <pthread.h>
#include <unistd.h>

#include "common/protocol/topics.h"

namespace fleetmcp::plugin {
namespace {

constexpr auto kTickGrace = std::chrono::seconds(5);
const char* const kScanTopics[] = {kEveryAnnounce, kEveryStatus};

}  // namespace

LoopbackWaker::LoopbackWaker(FleetPlugin& plugin, int port) : plugin_(plugin), port_(port) {
  mosquitto_lib_init();
  const auto& credentials = plugin_.parts().waker_credentials;
  client_ = mosquitto_new(credentials.username.c_str(), true, this);
  if (client_ == nullptr) throw Error(ErrorCode::kInternal, "cannot create the loopback waker client", "out of memory?");
  mosquitto_username_pw_set(client_, credentials.username.c_str(), credentials.secret.c_str());
  mosquitto_int_option(client_, MOSQ_OPT_TCP_NODELAY, 1);
  // Not threaded_set(true): in "threaded" mode mosquitto_publish only queues the packet and
  // writes a byte to a socketpair that wakes this client's own thread, which then writes it (a
  // second hand-off and ~4 system calls per wake). Unthreaded, the thread that calls
  // mosquitto_publish writes the packet itself, under the client's output mutex (libmosquitto
  // locks its packet queues in either mode). loop() below never polls that socketpair, so the
  // byte it still gets wakes no one (once its buffer is full the write just fails).
  mosquitto_threaded_set(client_, false);
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
  if (!connected_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(socket_mutex_);
  if (connected_.load(std::memory_order_relaxed)) mosquitto_publish(client_, nullptr, kWakeTopic, 0, nullptr, 0, false);
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
    if (const int rc = serve_socket(std::chrono::milliseconds(100)); rc != MOSQ_ERR_SUCCESS) {
      std::fprintf(stderr, "fleetmcp: loopback waker lost its connection (%s), reconnecting\n",
                   mosquitto_strerror(rc));
      std::lock_guard lock(socket_mutex_);
      connected_.store(false, std::memory_order_release);
      mosquitto_disconnect(client_);
    }
  }
  std::unique_lock lock(socket_mutex_);
  if (connected_.exchange(false)) {
    mosquitto_disconnect(client_);
    lock.unlock();
    serve_socket(std::chrono::milliseconds(10));  // flush the DISCONNECT
  }
}

// mosquitto_loop() without the socketpair: waits for the broker's packets (CONNACK, SUBACK, the
// scan's retained messages, PINGRESP) or for a pending write, then reads, writes and keeps alive.
// A wake whose write was cut short (socket buffer full: not seen on loopback) is finished here
// within `timeout` at the latest; the broker's own tick comes every 100 ms in any case.
int LoopbackWaker::serve_socket(std::chrono::milliseconds timeout) {
  pollfd socket{mosquitto_socket(client_), POLLIN, 0};
  if (mosquitto_want_write(client_)) socket.events |= POLLOUT;
  if (poll(&socket, 1, static_cast<int>(timeout.count())) < 0 && errno != EINTR) return MOSQ_ERR_ERRNO;
  std::lock_guard lock(socket_mutex_);
  int rc = MOSQ_ERR_SUCCESS;
  if (socket.revents & (POLLIN | POLLERR | POLLHUP)) rc = mosquitto_loop_read(client_, 1);
  // A callback (on_connect, on_message) may have queued a packet: write it now.
  if (rc == MOSQ_ERR_SUCCESS && mosquitto_want_write(client_)) rc = mosquitto_loop_write(client_, 1);
  if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_loop_misc(client_);
  return rc;
}

bool LoopbackWaker::connect_once() {
  std::lock_guard lock(socket_mutex_);
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
  if (plugin_.parts().counters.ticks.load(std::memory_order_relaxed) > 0) return;
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
