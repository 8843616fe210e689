#include "bench/http_load/stream_hold.h"

#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <cmath>
#include <thread>

#include "bench/http_load/sse_subscriber.h"
#include "bench/load_clock.h"
#include "bench/process_usage.h"

namespace fleetmcp::bench {
namespace {

namespace asio = boost::asio;

constexpr auto kPoll = std::chrono::milliseconds(50);
constexpr auto kAfterClose = std::chrono::seconds(2);

class StreamHold {
 public:
  StreamHold(asio::io_context& io, ToolCallApi& api, const StreamLoad& load) : io_(io), api_(api), load_(load), timer_(io) {}

  StreamHoldResult run() {
    measure_idle();
    start_ms_ = steady_ms();
    for (int i = 0; i < load_.count; ++i) open_one(i);
    wait_for_first_samples();
    io_.run();
    io_.restart();
    summarize_samples();
    return std::move(result_);
  }

 private:
  void measure_idle() {
    if (load_.watch_pid == 0) return;
    const double cpu = cpu_seconds(load_.watch_pid);
    std::this_thread::sleep_for(std::chrono::duration<double>(load_.idle_s));
    result_.cpu_idle_pct = 100 * (cpu_seconds(load_.watch_pid) - cpu) / load_.idle_s;
    result_.rss_before_kib = resident_kib(load_.watch_pid);
  }

  void open_one(int i) {
    const auto& tool = load_.tools[static_cast<size_t>(i) % load_.tools.size()];
    auto s = std::make_shared<SseSubscriber>(io_, load_.server, api_.api(), api_.stream(tool, load_.interval_ms));
    subscribers_.push_back(s);
    s->open([this, s](const std::string& failure) {
      if (failure.empty()) {
        ++result_.opened;
        open_.push_back(s);
      } else {
        ++result_.open_failures[failure];
      }
      if (++answered_ == load_.count) result_.all_answered_ms = steady_ms() - start_ms_;
    });
  }

  void wait_for_first_samples() {
    const bool all_answered = answered_ == load_.count;
    const bool all_sampled =
        all_answered && std::all_of(open_.begin(), open_.end(), [](const auto& s) { return !s->samples().empty() || !s->ended().empty(); });
    if (all_sampled) result_.all_first_sample_ms = steady_ms() - start_ms_;
    if (all_sampled || steady_ms() - start_ms_ > load_.open_timeout_s * 1000) return start_hold();
    timer_.expires_after(kPoll);
    timer_.async_wait([this](const boost::system::error_code&) { wait_for_first_samples(); });
  }

  void start_hold() {
    hold_start_ms_ = steady_ms();
    if (load_.watch_pid != 0) hold_cpu_ = cpu_seconds(load_.watch_pid);
    timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(load_.seconds)));
    timer_.async_wait([this](const boost::system::error_code&) { end_hold(); });
  }

  void end_hold() {
    hold_end_ms_ = steady_ms();
    result_.hold_s = (hold_end_ms_ - hold_start_ms_) / 1000;
    if (load_.watch_pid != 0) {
      result_.cpu_held_pct = 100 * (cpu_seconds(load_.watch_pid) - hold_cpu_) / result_.hold_s;
      result_.rss_held_kib = resident_kib(load_.watch_pid);
    }
    for (const auto& s : open_) {
      if (!s->ended().empty()) ++result_.ended_early[s->ended()];
      s->close();
    }
    timer_.expires_after(kAfterClose);
    timer_.async_wait([this](const boost::system::error_code&) {
      if (load_.watch_pid != 0) result_.rss_after_close_kib = resident_kib(load_.watch_pid);
      io_.stop();
    });
  }

  void summarize_samples() {
    std::vector<double> jitter, age;
    result_.expected_per_stream = result_.hold_s * 1000 / load_.interval_ms;
    result_.min_samples = open_.empty() ? 0 : INT32_MAX;
    for (const auto& s : open_) {
      int in_hold = 0;
      double previous = -1;
      for (const StreamSample& sample : s->samples()) {
        if (sample.arrival_ms < hold_start_ms_ || sample.arrival_ms > hold_end_ms_) {
          previous = sample.arrival_ms;  // a gap ending inside the hold still counts
          continue;
        }
        ++in_hold;
        age.push_back(sample.age_ms);
        if (previous >= 0) {
          const double gap = sample.arrival_ms - previous;
          jitter.push_back(std::abs(gap - load_.interval_ms));
          if (gap > 1.5 * load_.interval_ms) ++result_.long_gaps;
        }
        previous = sample.arrival_ms;
      }
      result_.samples += static_cast<uint64_t>(in_hold);
      result_.min_samples = std::min(result_.min_samples, in_hold);
      result_.max_samples = std::max(result_.max_samples, in_hold);
    }
    result_.jitter = summarize(jitter);
    result_.age = summarize(age);
  }

  asio::io_context& io_;
  ToolCallApi& api_;
  const StreamLoad& load_;
  asio::steady_timer timer_;
  std::vector<std::shared_ptr<SseSubscriber>> subscribers_, open_;
  int answered_ = 0;
  double start_ms_ = 0, hold_start_ms_ = 0, hold_end_ms_ = 0, hold_cpu_ = 0;
  StreamHoldResult result_;
};

}  // namespace

StreamHoldResult run_stream_hold(asio::io_context& io, ToolCallApi& api, const StreamLoad& load) {
  StreamHold hold(io, api, load);
  return hold.run();
}

}  // namespace fleetmcp::bench
