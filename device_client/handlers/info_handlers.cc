#include "device_client/handlers/info_handlers.h"

#include <cmath>
#include <thread>

#include "device_client/base/catalogue_error.h"
#include "device_client/host/network_facts.h"
#include "device_client/host/process_table.h"

namespace fleetmcp::device {

Result<json::Document> NetworkHandler::run(const ToolCall&) { return read_network_status("", true); }

Result<json::Document> ProcessHandler::run(const ToolCall& call) {
  // cpu_percent is rated between two readings kCpuWindow apart (rate_cpu_over_window): the
  // caller waits that long, a /proc walk costs milliseconds. The window is /proc/uptime's.
  const ProcessContext first = read_process_context(proc_root_);
  if (call.verb == "snapshot") {
    const auto earlier = read_all_processes(first);
    std::this_thread::sleep_for(kCpuWindow);
    const ProcessContext ctx = read_process_context(proc_root_);
    auto later = read_all_processes(ctx);
    const double interval_s = ctx.uptime_s - first.uptime_s;
    rate_cpu_over_window(later, earlier, interval_s);
    return process_list_json(std::move(later), process_query_from(call.arguments), std::llround(interval_s * 1000.0));
  }
  const int64_t pid = call.arguments["pid"].GetInt64();
  const auto gone = [&] { return not_found("no process " + std::to_string(pid), "list processes (snapshot) to find a current pid"); };
  const auto earlier = read_process(first, pid, false);
  if (!earlier) return gone();
  std::this_thread::sleep_for(kCpuWindow);
  const ProcessContext ctx = read_process_context(proc_root_);
  auto p = read_process(ctx, pid, true);
  if (!p) return gone();
  std::vector<ProcessInfo> later{std::move(*p)};
  rate_cpu_over_window(later, {*earlier}, ctx.uptime_s - first.uptime_s);
  return process_detail_json(later.front());
}

}  // namespace fleetmcp::device
