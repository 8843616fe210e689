// subscriptions/listen (MCP 2026-07-28): with no session to hold a GET stream, a client asks for the
// change notifications it wants in a request of their own, whose SSE response stays open. Each such
// stream belongs to a session made for it alone (in no table, like every 2026 request's); this is
// where the list_changed notifier finds them by tenant. The first message on a stream is
// notifications/subscriptions/acknowledged with the filter honoured; every later one carries
// _meta["io.modelcontextprotocol/subscriptionId"], the listen request's id. Honoured:
// toolsListChanged only (docs/http-front.md "Revisions" says what is not). Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "broker_plugin/http/mcp/mcp_session.h"

namespace fleetmcp::http {

struct ListenFilter {
  bool tools = false;  // toolsListChanged
};

class ListenStreams {
 public:
  // Keeps `session` (whose stream is attached) until its stream ends, and sends the
  // acknowledgement on it. `id_json` is the listen request's id as JSON text.
  void add(std::shared_ptr<McpSession> session, std::string id_json, ListenFilter filter);
  // The tools `tenant` may list changed (list_changed.h): notifications/tools/list_changed on each
  // of its listen streams that asked for it. Returns how many went out.
  size_t fleet_changed(const std::string& tenant);
  // The front stops: every stream ends.
  void end_all();

 private:
  struct Listen {
    std::shared_ptr<McpSession> session;
    std::string id_json;
    ListenFilter filter;
  };
  std::mutex mutex_;
  std::multimap<std::string, Listen> by_tenant_;
};

}  // namespace fleetmcp::http
