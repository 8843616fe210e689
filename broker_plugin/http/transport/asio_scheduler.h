// Scheduler (exchange.h) over a Boost.Asio io_context that exactly ONE thread runs (the HTTP
// front's io threads, http_front.cc; the test devices' thread). Everything of that io_context runs
// on that thread, one handler at a time, so posted work and timer callbacks never run
// concurrently without a strand: a strand there would serialise nothing and only cost a queue, a
// lock and an extra scheduler round per handler (issue 15). It holds the io_context by
// shared_ptr, so work posted from the broker thread after the front has stopped cannot reach freed
// memory; and once the io_context has shut down (FrontIoContext::drop_pending, or its destructor)
// such work is destroyed at once instead of queued (PostGate, asio_scheduler.cc): queued, it
// would hold what it captured (a connection, which holds the io_context) in a cycle for ever.
#pragma once

#include <boost/asio/io_context.hpp>

#include <memory>

#include "broker_plugin/http/transport/exchange.h"

namespace fleetmcp::http {

class AsioScheduler : public Scheduler {
 public:
  // The io_context's executor as a concrete type (not any_io_executor): no type-erased executor
  // per post or timer.
  using Executor = boost::asio::io_context::executor_type;

  // `io` must be run by exactly one thread (see above); post() may be called from any thread.
  explicit AsioScheduler(std::shared_ptr<boost::asio::io_context> io);

  void post(std::function<void()> fn) override;
  std::unique_ptr<Timer> after(std::chrono::milliseconds delay, std::function<void()> fn) override;

  class PostGate;

 private:
  std::shared_ptr<boost::asio::io_context> io_;
  Executor executor_;
  PostGate& gate_;
};

}  // namespace fleetmcp::http
