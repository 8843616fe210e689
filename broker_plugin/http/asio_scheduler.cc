#include "broker_plugin/http/asio_scheduler.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>

namespace fleetmcp::http {
namespace {

namespace asio = boost::asio;

using Executor = AsioScheduler::Executor;
using SteadyTimer = asio::basic_waitable_timer<std::chrono::steady_clock, asio::wait_traits<std::chrono::steady_clock>, Executor>;

class AsioTimer final : public Timer {
 public:
  AsioTimer(Executor executor, std::chrono::milliseconds delay, std::function<void()> fn)
      : executor_(executor), timer_(std::make_shared<SteadyTimer>(executor_, delay)),
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
    asio::post(executor_, [t = timer_] { t->cancel(); });
  }

 private:
  Executor executor_;
  std::shared_ptr<SteadyTimer> timer_;
  std::shared_ptr<std::atomic<bool>> cancelled_;
};

}  // namespace

void AsioScheduler::post(std::function<void()> fn) { asio::post(executor_, std::move(fn)); }

std::unique_ptr<Timer> AsioScheduler::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  return std::make_unique<AsioTimer>(executor_, delay, std::move(fn));
}

}  // namespace fleetmcp::http
