#include "broker_plugin/http/asio_scheduler.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>

namespace fleetmcp::http {
namespace {

namespace asio = boost::asio;

class AsioTimer final : public Timer {
 public:
  AsioTimer(asio::any_io_executor strand, std::chrono::milliseconds delay, std::function<void()> fn)
      : strand_(std::move(strand)), timer_(std::make_shared<asio::steady_timer>(strand_, delay)),
        cancelled_(std::make_shared<std::atomic<bool>>(false)) {
    timer_->async_wait([t = timer_, cancelled = cancelled_, fn = std::move(fn)](const boost::system::error_code& ec) {
      // The flag, not the error code, decides: a destroyed Timer may have lost the race with expiry.
      if (!ec && !cancelled->load()) fn();
    });
  }

  ~AsioTimer() override {
    cancelled_->store(true);
    // steady_timer is not thread-safe: cancel it on its strand.
    asio::post(strand_, [t = timer_] { t->cancel(); });
  }

 private:
  asio::any_io_executor strand_;
  std::shared_ptr<asio::steady_timer> timer_;
  std::shared_ptr<std::atomic<bool>> cancelled_;
};

}  // namespace

std::shared_ptr<AsioScheduler> AsioScheduler::with_new_strand(std::shared_ptr<asio::io_context> io) {
  asio::any_io_executor strand = asio::make_strand(*io);
  return std::make_shared<AsioScheduler>(std::move(io), std::move(strand));
}

void AsioScheduler::post(std::function<void()> fn) { asio::post(strand_, std::move(fn)); }

std::unique_ptr<Timer> AsioScheduler::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  return std::make_unique<AsioTimer>(strand_, delay, std::move(fn));
}

}  // namespace fleetmcp::http
