#include "device_client/handlers/info_handlers.h"

#include "device_client/base/catalogue_error.h"
#include "device_client/host/network_facts.h"
#include "device_client/host/process_table.h"

namespace fleetmcp::device {

Result<json::Document> NetworkHandler::run(const ToolCall&) { return read_network_status("", true); }

Result<json::Document> ProcessHandler::run(const ToolCall& call) {
  const ProcessContext ctx = read_process_context(proc_root_);
  if (call.verb == "snapshot") return process_list_json(read_all_processes(ctx), process_query_from(call.arguments));
  const int64_t pid = call.arguments["pid"].GetInt64();
  const auto p = read_process(ctx, pid, true);
  if (!p) return not_found("no process " + std::to_string(pid), "list processes (snapshot) to find a current pid");
  return process_detail_json(*p);
}

}  // namespace fleetmcp::device
