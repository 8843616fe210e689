// M metrics streams held open at once over the fleet's nodes (round robin), each asking for the
// same interval: how fast they all open, the jitter of the gaps between a stream's samples
// against that interval, how old samples are on arrival, and, for a watched process (the
// broker), resident memory and CPU before, while and after the streams are held.
//
// Sequence: CPU of the watched process over `idle_s` with no streams; open all M at once; once
// each open stream has its first sample (or `open_timeout_s` passed) the hold starts; after
// `seconds` every stream is closed by the client; memory again 2 s later.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "bench/http_load/tool_call_api.h"
#include "bench/latency_record.h"

namespace fleetmcp::bench {

struct StreamLoad {
  boost::asio::ip::tcp::endpoint server;
  std::vector<std::string> tools;  // metrics subscribe tools
  int count = 1000;
  int interval_ms = 1000;
  double seconds = 30;
  double idle_s = 5;
  double open_timeout_s = 20;
  pid_t watch_pid = 0;  // 0: no memory/CPU figures
};

struct StreamHoldResult {
  int opened = 0;
  std::map<std::string, uint64_t> open_failures;
  double all_answered_ms = 0;      // until every stream had its response head (or failed)
  double all_first_sample_ms = 0;  // until every open stream had its first sample
  double hold_s = 0;
  uint64_t samples = 0;            // during the hold
  double expected_per_stream = 0;  // hold_s * 1000 / interval_ms
  int min_samples = 0, max_samples = 0;
  LatencySummary jitter;           // |gap between a stream's consecutive samples - interval_ms|
  uint64_t long_gaps = 0;          // gaps over 1.5 x the interval (a sample missed)
  LatencySummary age;              // arrival (wall clock) minus the sample's ts_ms
  std::map<std::string, uint64_t> ended_early;  // streams the server ended during the hold
  // Watched process (watch_pid):
  int64_t rss_before_kib = 0, rss_held_kib = 0, rss_after_close_kib = 0;
  double cpu_idle_pct = 0, cpu_held_pct = 0;  // of one core
};

StreamHoldResult run_stream_hold(boost::asio::io_context& io, ToolCallApi& api, const StreamLoad& load);

}  // namespace fleetmcp::bench
