// http_load: the HTTP front's load generator (run by bench/http_bench.sh, which starts mosquitto,
// the plugin with its front and `fleetmcp-device --simulate`). Boost.Beast clients on one thread,
// keep-alive connections, one request per connection at a time.
//
//   http_load rate    COMMON --rate R [--seconds S] [--warmup S] [--max-connections C]
//       open loop: R echo calls/s spread round robin over the nodes; latency counts from when a
//       call was due (no coordinated omission); p50/p90/p99/p99.9/max and failures by kind.
//   http_load closed  COMMON --connections K [--seconds S] [--warmup S]
//       closed loop: K connections each calling back to back: the rate sustained, and latency.
//   http_load streams COMMON [--count M] [--interval-ms I] [--seconds S] [--idle-seconds S]
//                     [--watch-pid PID]
//       M metrics subscribe streams held at once over the nodes (stream_hold.h): open time,
//       jitter of the gaps against I, sample age, and the watched process's RSS and CPU.
//
//   COMMON: --port P --token T --nodes FILE (node_ids, one a line) [--api rfc0009|mcp|mcp2026] [--json]
//           [--watch NAME=PID,...]: rate/closed also report each process's CPU per recorded call
//   --api rfc0009 (default): POST /mcp/tools/call; mcp: tools/call in an MCP session on /mcp;
//   mcp2026: tools/call on /mcp at revision 2026-07-28 (no session).
#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench/http_load/call_load.h"
#include "bench/http_load/stream_hold.h"
#include "bench/process_usage.h"
#include "common/base/error.h"
#include "common/base/json.h"

using namespace fleetmcp;
using namespace fleetmcp::bench;
using tcp = boost::asio::ip::tcp;

namespace {

constexpr const char* kUsage =
    "usage: http_load rate|closed|streams --port P --token T --nodes FILE [--api rfc0009|mcp|mcp2026] [--json]\n"
    "                 [--watch NAME=PID,...]\n"
    "         rate:    --rate R [--seconds S] [--warmup S] [--max-connections C]\n"
    "         closed:  --connections K [--seconds S] [--warmup S]\n"
    "         streams: [--count M] [--interval-ms I] [--seconds S] [--idle-seconds S] [--watch-pid PID]\n";

// --name value pairs, plus the flag --json.
class Options {
 public:
  Options(int argc, char** argv) {
    for (int i = 2; i < argc; ++i) {
      const std::string name = argv[i];
      if (name == "--json") {
        json_ = true;
      } else if (name.rfind("--", 0) == 0 && i + 1 < argc) {
        values_[name.substr(2)] = argv[++i];
      } else {
        throw Error(ErrorCode::kBadRequest, "unexpected argument " + name, kUsage);
      }
    }
  }
  std::string text(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) throw Error(ErrorCode::kBadRequest, "missing --" + name, kUsage);
    return it->second;
  }
  std::string text(const std::string& name, const std::string& fallback) const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }
  double number(const std::string& name, double fallback) const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : std::stod(it->second);
  }
  bool json() const { return json_; }

 private:
  std::map<std::string, std::string> values_;
  bool json_ = false;
};

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::kBadRequest, "cannot read " + path, "pass --nodes FILE with one node_id a line");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.empty()) throw Error(ErrorCode::kBadRequest, path + " lists no nodes", "");
  return lines;
}

std::vector<std::string> tools_of(const std::vector<std::string>& nodes, const std::string& kind_short,
                                  const std::string& cap_and_verb) {
  std::vector<std::string> tools;
  for (const auto& node : nodes) tools.push_back(kind_short + "." + node + "." + cap_and_verb);
  return tools;
}

// A thousand streams need a thousand descriptors; the soft limit is often 1024.
void raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

void print_json(json::Document& doc) { std::printf("%s\n", json::to_string(doc).c_str()); }

int report_calls(const Options& o, const std::string& mode, CallApi api, double offered, int connections,
                 CallLoadResult& r) {
  if (o.json()) {
    json::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("mode", json::string_value(mode, a), a);
    doc.AddMember("api", json::string_value(call_api_name(api), a), a);
    if (offered > 0) doc.AddMember("offered_per_s", offered, a);
    if (connections > 0) doc.AddMember("connections_asked", connections, a);
    doc.AddMember("answered_per_s", r.answered_per_s, a);
    doc.AddMember("ok_per_s", r.ok_per_s, a);
    doc.AddMember("measured_s", r.measured_s, a);
    doc.AddMember("connections", r.connections, a);
    doc.AddMember("reconnects", r.reconnects, a);
    doc.AddMember("worst_queue_ms", r.worst_queue_ms, a);
    doc.AddMember("unanswered", r.unanswered, a);
    json::Value cpu(rapidjson::kObjectType);
    for (const auto& [name, us] : r.cpu_us_per_call) cpu.AddMember(json::string_value(name, a), json::Value(us), a);
    doc.AddMember("cpu_us_per_call", cpu, a);
    r.record.add_to(doc, a);
    print_json(doc);
    return 0;
  }
  std::printf("%s %s%s: %llu ok in %.1f s = %.0f ok/s (%.0f answered/s), %d connections; %s\n",
              std::string(call_api_name(api)).c_str(), mode.c_str(),
              offered > 0 ? (" " + std::to_string(static_cast<int>(offered)) + "/s").c_str()
                          : (" x" + std::to_string(connections)).c_str(),
              static_cast<unsigned long long>(r.record.ok_count()), r.measured_s, r.ok_per_s, r.answered_per_s,
              r.connections, r.record.describe().c_str());
  for (const auto& [name, us] : r.cpu_us_per_call) std::printf("  %s CPU %.0f us per call\n", name.c_str(), us);
  return 0;
}

void add_summary(json::Value& object, const char* name, const LatencySummary& s, json::Allocator& a) {
  json::Value v(rapidjson::kObjectType);
  add_percentiles(v, s, a);
  object.AddMember(rapidjson::StringRef(name), v, a);
}

void add_counts(json::Value& object, const char* name, const std::map<std::string, uint64_t>& counts, json::Allocator& a) {
  json::Value v(rapidjson::kObjectType);
  for (const auto& [kind, n] : counts) v.AddMember(json::string_value(kind, a), json::Value(n), a);
  object.AddMember(rapidjson::StringRef(name), v, a);
}

int report_streams(const Options& o, CallApi api, const StreamLoad& load, const StreamHoldResult& r) {
  if (o.json()) {
    json::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("mode", "streams", a);
    doc.AddMember("api", json::string_value(call_api_name(api), a), a);
    doc.AddMember("asked", load.count, a);
    doc.AddMember("interval_ms", load.interval_ms, a);
    doc.AddMember("opened", r.opened, a);
    add_counts(doc, "open_failures", r.open_failures, a);
    doc.AddMember("all_answered_ms", r.all_answered_ms, a);
    doc.AddMember("all_first_sample_ms", r.all_first_sample_ms, a);
    doc.AddMember("hold_s", r.hold_s, a);
    doc.AddMember("samples", r.samples, a);
    doc.AddMember("expected_per_stream", r.expected_per_stream, a);
    doc.AddMember("min_samples", r.min_samples, a);
    doc.AddMember("max_samples", r.max_samples, a);
    add_summary(doc, "jitter", r.jitter, a);
    doc.AddMember("long_gaps", r.long_gaps, a);
    add_summary(doc, "age", r.age, a);
    add_counts(doc, "ended_early", r.ended_early, a);
    doc.AddMember("rss_before_kib", r.rss_before_kib, a);
    doc.AddMember("rss_held_kib", r.rss_held_kib, a);
    doc.AddMember("rss_after_close_kib", r.rss_after_close_kib, a);
    doc.AddMember("cpu_idle_pct", r.cpu_idle_pct, a);
    doc.AddMember("cpu_held_pct", r.cpu_held_pct, a);
    print_json(doc);
    return 0;
  }
  std::printf("%s streams: %d of %d open (all answered in %.0f ms, all sampled in %.0f ms)\n",
              std::string(call_api_name(api)).c_str(), r.opened, load.count, r.all_answered_ms, r.all_first_sample_ms);
  for (const auto& [kind, n] : r.open_failures) std::printf("  refused: %s x%llu\n", kind.c_str(), static_cast<unsigned long long>(n));
  std::printf("  hold %.1f s: %llu samples, %d..%d per stream (%.1f expected), %llu gaps > 1.5 x %d ms\n", r.hold_s,
              static_cast<unsigned long long>(r.samples), r.min_samples, r.max_samples, r.expected_per_stream,
              static_cast<unsigned long long>(r.long_gaps), load.interval_ms);
  std::printf("  |gap - interval|  p50 %.1f ms  p90 %.1f ms  p99 %.1f ms  max %.1f ms\n", r.jitter.p50_ms, r.jitter.p90_ms,
              r.jitter.p99_ms, r.jitter.max_ms);
  std::printf("  sample age        p50 %.1f ms  p90 %.1f ms  p99 %.1f ms  max %.1f ms\n", r.age.p50_ms, r.age.p90_ms,
              r.age.p99_ms, r.age.max_ms);
  for (const auto& [why, n] : r.ended_early) std::printf("  ended early: %s x%llu\n", why.c_str(), static_cast<unsigned long long>(n));
  if (load.watch_pid != 0) {
    std::printf("  pid %d RSS %lld KiB before, %lld KiB held (%.1f KiB per stream), %lld KiB 2 s after close\n",
                static_cast<int>(load.watch_pid), static_cast<long long>(r.rss_before_kib), static_cast<long long>(r.rss_held_kib),
                r.opened > 0 ? static_cast<double>(r.rss_held_kib - r.rss_before_kib) / r.opened : 0.0,
                static_cast<long long>(r.rss_after_close_kib));
    std::printf("  pid %d CPU %.1f %% of a core idle, %.1f %% while streaming\n", static_cast<int>(load.watch_pid),
                r.cpu_idle_pct, r.cpu_held_pct);
  }
  return 0;
}

int run(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string mode = argv[1];
  const Options o(argc, argv);
  raise_descriptor_limit();
  const tcp::endpoint server(boost::asio::ip::make_address("127.0.0.1"),
                             static_cast<unsigned short>(std::stoi(o.text("port"))));
  const std::string token = o.text("token");
  const auto chosen = call_api_named(o.text("api", "rfc0009"));
  if (!chosen) throw Error(ErrorCode::kBadRequest, "--api must be rfc0009, mcp or mcp2026", kUsage);
  const std::vector<std::string> nodes = read_lines(o.text("nodes"));
  const std::string session = *chosen == CallApi::kMcp ? open_mcp_session(server, token) : "";
  ToolCallApi calls(*chosen, "127.0.0.1", token, session);
  boost::asio::io_context io;

  if (mode == "rate" || mode == "closed") {
    CallLoad load{server, tools_of(nodes, "sysecho", "echo.invoke"), R"({"message":"ping"})", o.number("warmup", 2),
                  o.number("seconds", 10), watch_list(o.text("watch", ""))};
    if (mode == "rate") {
      const double rate = o.number("rate", 500);
      CallLoadResult r = run_open_loop(io, calls, load, rate, static_cast<int>(o.number("max-connections", 256)));
      return report_calls(o, "open-loop", *chosen, rate, 0, r);
    }
    const int k = static_cast<int>(o.number("connections", 16));
    CallLoadResult r = run_closed_loop(io, calls, load, k);
    return report_calls(o, "closed-loop", *chosen, 0, k, r);
  }
  if (mode == "streams") {
    StreamLoad load;
    load.server = server;
    load.tools = tools_of(nodes, "sys", "metrics.subscribe");
    load.count = static_cast<int>(o.number("count", 1000));
    load.interval_ms = static_cast<int>(o.number("interval-ms", 1000));
    load.seconds = o.number("seconds", 30);
    load.idle_s = o.number("idle-seconds", 5);
    load.watch_pid = static_cast<pid_t>(o.number("watch-pid", 0));
    const StreamHoldResult r = run_stream_hold(io, calls, load);
    return report_streams(o, *chosen, load, r);
  }
  throw Error(ErrorCode::kBadRequest, "unknown mode " + mode, kUsage);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "http_load: %s\n", e.what());
    return 2;
  }
}
