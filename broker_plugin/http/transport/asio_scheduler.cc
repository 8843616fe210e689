#include "broker_plugin/http/transport/asio_scheduler.h"

#include <boost/asio/execution_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <mutex>

namespace fleetmcp::http {

namespace asio = boost::asio;
using Executor = AsioScheduler::Executor;

// Posts to an io_context until it shuts down, then drops the work. One per io_context (an asio
// service, so every scheduler of the io_context finds the same one). asio shuts its services down
// newest first, so the gate closes before the scheduler service destroys the queued handlers: work
// posted before the close is destroyed with the queue, work posted after it is destroyed here. The
// lock makes the two exclusive (a strand did the same before the front dropped its strands).
class AsioScheduler::PostGate : public asio::execution_context::service {
 public:
  static inline asio::execution_context::id id;
  explicit PostGate(asio::execution_context& context) : service(context) {}

  // Runs `start` (which hands work to the io_context: a post, a timer's wait) under the lock
  // while the io_context is open; false once it has shut down. Work a caller did not hand over
  // is the caller's to destroy, after this returns: what it holds may post again.
  template <typename Start>
  bool if_open(Start&& start) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (open_) start();
    return open_;
  }

 private:
  void shutdown() override {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = false;
  }

  std::mutex mutex_;
  bool open_ = true;
};

namespace {

using SteadyTimer = asio::basic_waitable_timer<std::chrono::steady_clock, asio::wait_traits<std::chrono::steady_clock>, Executor>;

class AsioTimer final : public Timer {
 public:
  AsioTimer(Executor executor, AsioScheduler::PostGate& gate, std::chrono::milliseconds delay, std::function<void()> fn)
      : executor_(executor), gate_(gate), timer_(std::make_shared<SteadyTimer>(executor_, delay)),
        cancelled_(std::make_shared<std::atomic<bool>>(false)) {
    timer_->async_wait([t = timer_, cancelled = cancelled_, fn = std::move(fn)](const boost::system::error_code& ec) {
      // The flag, not the error code, decides: a destroyed Timer may have lost the race with expiry.
      if (!ec && !cancelled->load()) fn();
    });
  }

  ~AsioTimer() override {
    cancelled_->store(true);
    // The timer is not thread-safe: cancel it on the io_context's one thread (at once when
    // already there, as a call's deadline timer is when its answer arrives).
    if (executor_.running_in_this_thread()) {
      timer_->cancel();
      return;
    }
    gate_.if_open([this] { asio::post(executor_, [t = timer_] { t->cancel(); }); });
  }

 private:
  Executor executor_;
  AsioScheduler::PostGate& gate_;
  std::shared_ptr<SteadyTimer> timer_;
  std::shared_ptr<std::atomic<bool>> cancelled_;
};

// A Timer whose io_context has shut down: it never fires, and its callback is gone already.
class DroppedTimer final : public Timer {};

}  // namespace

AsioScheduler::AsioScheduler(std::shared_ptr<asio::io_context> io)
    : io_(std::move(io)), executor_(io_->get_executor()), gate_(asio::use_service<PostGate>(*io_)) {}

void AsioScheduler::post(std::function<void()> fn) {
  gate_.if_open([&] { asio::post(executor_, std::move(fn)); });
}

std::unique_ptr<Timer> AsioScheduler::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  std::unique_ptr<Timer> timer;
  gate_.if_open([&] { timer = std::make_unique<AsioTimer>(executor_, gate_, delay, std::move(fn)); });
  return timer ? std::move(timer) : std::make_unique<DroppedTimer>();
}

}  // namespace fleetmcp::http
