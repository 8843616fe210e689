// The two ways the load generator drives unary tool calls (bench/http_load/main.cc):
//
//   open loop    call i is due at start + i / rate whatever happened to earlier calls, so a slow
//                answer never slows the offered load down (no coordinated omission). A due call
//                takes an idle keep-alive connection, opens another one (up to a cap) or waits
//                for one; its latency counts from when it was due.
//   closed loop  K keep-alive connections, each sending its next call as soon as the previous
//                one is answered: the rate the system sustains with K calls in flight.
//
// Calls go round robin over `tools`. The first `warmup_s` are not recorded.
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

struct CallLoad {
  boost::asio::ip::tcp::endpoint server;
  std::vector<std::string> tools;
  std::string arguments_json;
  double warmup_s = 2;
  double seconds = 10;
  std::map<std::string, pid_t> watched;  // processes whose CPU per call is reported (name -> pid)
};

struct CallLoadResult {
  LatencyRecord record;
  double measured_s = 0;        // from the first recorded call's start to the last one's answer
  double answered_per_s = 0;    // recorded calls answered (ok or not) per second
  double ok_per_s = 0;
  int connections = 0;          // keep-alive connections used
  int reconnects = 0;           // connections the server closed that had to be opened again
  double worst_queue_ms = 0;    // open loop: longest wait of a due call for a free connection
  uint64_t unanswered = 0;      // calls still outstanding 15 s after the run
  std::map<std::string, double> cpu_us_per_call;  // of each watched process, over the recorded calls
};

CallLoadResult run_open_loop(boost::asio::io_context& io, ToolCallApi& api, const CallLoad& load, double rate,
                             int max_connections);
CallLoadResult run_closed_loop(boost::asio::io_context& io, ToolCallApi& api, const CallLoad& load, int connections);

}  // namespace fleetmcp::bench
