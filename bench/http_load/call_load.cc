#include "bench/http_load/call_load.h"

#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <deque>
#include <memory>

#include "bench/load_clock.h"
#include "bench/process_usage.h"

namespace fleetmcp::bench {
namespace {

namespace asio = boost::asio;
using Ms = std::chrono::duration<double, std::milli>;

constexpr double kDrainMs = 15000;  // a call outstanding this long after the run is "unanswered"

// What both loops share: the connections, the round-robin tool choice, recording, and the end.
class CallRun {
 public:
  CallRun(asio::io_context& io, ToolCallApi& api, const CallLoad& load) : io_(io), api_(api), load_(load), drain_(io) {}

  std::shared_ptr<KeepAliveConnection> new_connection() {
    connections_.push_back(std::make_shared<KeepAliveConnection>(io_, load_.server));
    return connections_.back();
  }

  // Sends call number `n` (due at `due_ms`) on `c`; `next` runs after it is recorded.
  void send(const std::shared_ptr<KeepAliveConnection>& c, uint64_t n, double due_ms, bool recorded,
            std::function<void()> next) {
    if (recorded && cpu_at_start_.empty()) {
      for (const auto& [name, pid] : load_.watched) cpu_at_start_[name] = cpu_seconds(pid);
    }
    ++outstanding_;
    const auto request = api_.call(load_.tools[n % load_.tools.size()], load_.arguments_json);
    c->send(request, [this, due_ms, recorded, next = std::move(next)](const boost::system::error_code& ec,
                                                                       HttpReplyMessage& reply) {
      --outstanding_;
      const double now = steady_ms();
      if (recorded) {
        const std::string failure = ec ? "transport " + ec.message() : api_.failure_of(reply);
        if (failure.empty()) result_.record.ok(now - due_ms);
        else result_.record.failed(failure, now - due_ms);
        last_answer_ms_ = std::max(last_answer_ms_, now);
      }
      next();
    });
  }

  // Once nothing more will be sent: waits for the outstanding calls (at most kDrainMs), then stops.
  void finish_when_drained() {
    if (outstanding_ == 0) return io_.stop();
    if (drain_started_ms_ == 0) drain_started_ms_ = steady_ms();
    if (steady_ms() - drain_started_ms_ > kDrainMs) {
      result_.unanswered = outstanding_;
      return io_.stop();
    }
    drain_.expires_after(std::chrono::milliseconds(5));
    drain_.async_wait([this](const boost::system::error_code&) { finish_when_drained(); });
  }

  CallLoadResult take(double first_recorded_ms) {
    result_.measured_s = std::max(1e-9, (last_answer_ms_ - first_recorded_ms) / 1000);
    result_.answered_per_s = static_cast<double>(result_.record.ok_count() + result_.record.failed_count()) / result_.measured_s;
    result_.ok_per_s = static_cast<double>(result_.record.ok_count()) / result_.measured_s;
    result_.connections = static_cast<int>(connections_.size());
    for (const auto& c : connections_) result_.reconnects += std::max(0, c->connects() - 1);
    const double calls = static_cast<double>(std::max<uint64_t>(1, result_.record.ok_count() + result_.record.failed_count()));
    for (const auto& [name, pid] : load_.watched) {
      result_.cpu_us_per_call[name] = 1e6 * (cpu_seconds(pid) - cpu_at_start_[name]) / calls;
    }
    return std::move(result_);
  }

  CallLoadResult result_;

 private:
  asio::io_context& io_;
  ToolCallApi& api_;
  const CallLoad& load_;
  asio::steady_timer drain_;
  std::vector<std::shared_ptr<KeepAliveConnection>> connections_;
  uint64_t outstanding_ = 0;
  double last_answer_ms_ = 0;
  double drain_started_ms_ = 0;
  std::map<std::string, double> cpu_at_start_;  // CPU seconds of the watched processes at the first recorded call
};

class OpenLoop {
 public:
  OpenLoop(asio::io_context& io, ToolCallApi& api, const CallLoad& load, double rate, int max_connections)
      : run_(io, api, load),
        timer_(io),
        period_ms_(1000.0 / rate),
        warmup_calls_(static_cast<uint64_t>(load.warmup_s * rate)),
        total_calls_(warmup_calls_ + static_cast<uint64_t>(load.seconds * rate)),
        max_connections_(max_connections) {}

  CallLoadResult run(asio::io_context& io) {
    start_ms_ = steady_ms();
    issue_due();
    io.run();
    io.restart();
    return run_.take(due_ms(warmup_calls_));
  }

 private:
  double due_ms(uint64_t n) const { return start_ms_ + static_cast<double>(n) * period_ms_; }

  void issue_due() {
    const double now = steady_ms();
    while (next_ < total_calls_ && due_ms(next_) <= now) dispatch(next_++);
    if (next_ == total_calls_) return run_.finish_when_drained();
    timer_.expires_at(std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(Ms(due_ms(next_)))));
    timer_.async_wait([this](const boost::system::error_code&) { issue_due(); });
  }

  void dispatch(uint64_t n) {
    if (!idle_.empty()) {
      auto c = idle_.back();
      idle_.pop_back();
      return send(c, n);
    }
    if (connections_ < max_connections_) {
      ++connections_;
      return send(run_.new_connection(), n);
    }
    waiting_.push_back(n);
  }

  void send(const std::shared_ptr<KeepAliveConnection>& c, uint64_t n) {
    const double due = due_ms(n);
    run_.result_.worst_queue_ms = std::max(run_.result_.worst_queue_ms, steady_ms() - due);
    run_.send(c, n, due, n >= warmup_calls_, [this, c] {
      if (!waiting_.empty()) {
        const uint64_t queued = waiting_.front();
        waiting_.pop_front();
        return send(c, queued);
      }
      idle_.push_back(c);
    });
  }

  CallRun run_;
  asio::steady_timer timer_;
  double period_ms_;
  uint64_t warmup_calls_, total_calls_;
  int max_connections_;
  int connections_ = 0;
  double start_ms_ = 0;
  uint64_t next_ = 0;
  std::vector<std::shared_ptr<KeepAliveConnection>> idle_;
  std::deque<uint64_t> waiting_;
};

class ClosedLoop {
 public:
  ClosedLoop(asio::io_context& io, ToolCallApi& api, const CallLoad& load, int connections)
      : run_(io, api, load), connections_(connections), warmup_s_(load.warmup_s), seconds_(load.seconds) {}

  CallLoadResult run(asio::io_context& io) {
    start_ms_ = steady_ms();
    for (int i = 0; i < connections_; ++i) loop(run_.new_connection());
    io.run();
    io.restart();
    return run_.take(start_ms_ + warmup_s_ * 1000);
  }

 private:
  void loop(const std::shared_ptr<KeepAliveConnection>& c) {
    const double now = steady_ms();
    if (now > start_ms_ + (warmup_s_ + seconds_) * 1000) {
      if (--running_ == 0) run_.finish_when_drained();
      return;
    }
    const bool recorded = now >= start_ms_ + warmup_s_ * 1000;
    run_.send(c, next_++, now, recorded, [this, c] { loop(c); });
  }

  CallRun run_;
  int connections_;
  int running_ = connections_;
  double warmup_s_, seconds_;
  double start_ms_ = 0;
  uint64_t next_ = 0;
};

}  // namespace

CallLoadResult run_open_loop(asio::io_context& io, ToolCallApi& api, const CallLoad& load, double rate,
                             int max_connections) {
  OpenLoop loop(io, api, load, rate, max_connections);
  return loop.run(io);
}

CallLoadResult run_closed_loop(asio::io_context& io, ToolCallApi& api, const CallLoad& load, int connections) {
  ClosedLoop loop(io, api, load, connections);
  return loop.run(io);
}

}  // namespace fleetmcp::bench
