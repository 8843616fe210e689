// Scheduler (exchange.h) over a Boost.Asio strand: posted work and timer callbacks of one strand
// never run concurrently. It holds the io_context by shared_ptr, so work posted from the broker
// thread after the front has stopped lands in a dead queue instead of freed memory.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include <memory>

#include "broker_plugin/http/exchange.h"

namespace fleetmcp::http {

class AsioScheduler : public Scheduler {
 public:
  // A concrete strand type (not any_io_executor): no type-erased executor per post or timer.
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  // `strand` must be a strand of `io`.
  AsioScheduler(std::shared_ptr<boost::asio::io_context> io, Strand strand)
      : io_(std::move(io)), strand_(std::move(strand)) {}
  // A new strand of `io`.
  static std::shared_ptr<AsioScheduler> with_new_strand(std::shared_ptr<boost::asio::io_context> io);

  void post(std::function<void()> fn) override;
  std::unique_ptr<Timer> after(std::chrono::milliseconds delay, std::function<void()> fn) override;

 private:
  std::shared_ptr<boost::asio::io_context> io_;
  Strand strand_;
};

}  // namespace fleetmcp::http
