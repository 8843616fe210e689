// Scheduler (exchange.h) over a Boost.Asio strand: posted work and timer callbacks of one strand
// never run concurrently. It holds the io_context by shared_ptr, so work posted from the broker
// thread after the front has stopped lands in a dead queue instead of freed memory.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>

#include <memory>

#include "broker_plugin/http/exchange.h"

namespace fleetmcp::http {

class AsioScheduler : public Scheduler {
 public:
  // `strand` must be a strand executor of `io` (or an io_context run by a single thread).
  AsioScheduler(std::shared_ptr<boost::asio::io_context> io, boost::asio::any_io_executor strand)
      : io_(std::move(io)), strand_(std::move(strand)) {}
  // A new strand of `io`.
  static std::shared_ptr<AsioScheduler> with_new_strand(std::shared_ptr<boost::asio::io_context> io);

  void post(std::function<void()> fn) override;
  std::unique_ptr<Timer> after(std::chrono::milliseconds delay, std::function<void()> fn) override;

 private:
  std::shared_ptr<boost::asio::io_context> io_;
  boost::asio::any_io_executor strand_;
};

}  // namespace fleetmcp::http
