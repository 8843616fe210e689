#include "broker_plugin/http/asio_scheduler.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>

namespace fleetmcp::http {
namespace {

namespace asio = boost::asio;

using Strand = AsioScheduler::Strand;
using StrandTimer = asio::basic_waitable_timer<std::chrono::steady_clock, asio::wait_traits<std::chrono::steady_clock>, Strand>;

class AsioTimer final : public Timer {
 public:
  AsioTimer(Strand strand, std::chrono::milliseconds delay, std::function<void()> fn)
      : strand_(std::move(strand)), timer_(std::make_shared<StrandTimer>(strand_, delay)),
        cancelled_(std::make_shared<std::atomic<bool>>(false)) {
    timer_->async_wait([t = timer_, cancelled = cancelled_, fn = std::move(fn)](const boost::system::error_code& ec) {
      // The flag, not the error code, decides: a destroyed Timer may have lost the race with expiry.
      if (!ec && !cancelled->load()) fn();
    });
  }

  ~AsioTimer() override {
    cancelled_->store(true);
    // The timer is not thread-safe: cancel it on its strand (at once when already there, as a
    // call's deadline timer is when its answer arrives).
    if (strand_.running_in_this_thread()) {
      timer_->cancel();
      return;
    }
    asio::post(strand_, [t = timer_] { t->cancel(); });
  }

 private:
  Strand strand_;
  std::shared_ptr<StrandTimer> timer_;
  std::shared_ptr<std::atomic<bool>> cancelled_;
};

}  // namespace

std::shared_ptr<AsioScheduler> AsioScheduler::with_new_strand(std::shared_ptr<asio::io_context> io) {
  Strand strand = asio::make_strand(*io);
  return std::make_shared<AsioScheduler>(std::move(io), std::move(strand));
}

void AsioScheduler::post(std::function<void()> fn) { asio::post(strand_, std::move(fn)); }

std::unique_ptr<Timer> AsioScheduler::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  return std::make_unique<AsioTimer>(strand_, delay, std::move(fn));
}

}  // namespace fleetmcp::http
