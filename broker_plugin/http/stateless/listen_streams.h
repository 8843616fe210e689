// subscriptions/listen (MCP 2026-07-28): with no session to hold a GET stream, a client asks for the
// change notifications it wants in a request of their own, whose SSE response stays open. This is
// where the list_changed notifier (mcp/list_changed.h) finds those streams by tenant. The first
// message on a stream is notifications/subscriptions/acknowledged with the filter honoured; every
// later one carries _meta["io.modelcontextprotocol/subscriptionId"], the listen request's id, and
// the last, when the server ends the stream, is the listen request's result (ended()).
// Honoured: toolsListChanged, resourcesListChanged and resourceSubscriptions (the updates of the
// named resources go out through mcp/node_resources.h, as a 2025 session's resources/subscribe
// does, and a node's metrics samples through mcp/mcp_metrics_stream.h; docs/http-front.md
// "Revisions" says what is not). Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/json.h"

namespace fleetmcp::http {

// A listen stream as the table sees it. The MCP endpoint's is a session made for the stream alone
// (in no table, like every 2026 request's: mcp/mcp_session.h), its stream attached.
class ListenSink {
 public:
  virtual ~ListenSink() = default;
  virtual const std::string& tenant() const = 0;
  virtual void notify(const std::string& message_json) = 0;  // any thread
  virtual bool streaming() const = 0;                         // false once the stream ended
  virtual void end_stream() = 0;                              // the front stops
};

struct ListenFilter {
  bool tools = false;                  // toolsListChanged
  bool resources = false;              // resourcesListChanged
  std::vector<std::string> resource_uris;  // resourceSubscriptions: told by mcp/node_resources.h
};

class ListenStreams {
 public:
  // Keeps `sink` until its stream ends, and sends the acknowledgement on it. `id_json` is the
  // listen request's id as JSON text.
  void add(std::shared_ptr<ListenSink> sink, std::string id_json, ListenFilter filter);
  // The tools `tenant` may list changed (list_changed.h): notifications/tools/list_changed on each
  // of its listen streams that asked for it. Returns how many went out.
  size_t tools_changed(const std::string& tenant) { return tell(tenant, &ListenFilter::tools, kToolsChanged); }
  // Likewise the resources it may list (its nodes): notifications/resources/list_changed.
  size_t resources_changed(const std::string& tenant) {
    return tell(tenant, &ListenFilter::resources, kResourcesChanged);
  }
  // The front stops: every stream ends.
  void end_all();
  // The listen request's result, which the revision sends only when the server ends the stream
  // (shutdown, its token's end, plugin_opt_http_max_stream_ms): resultType "complete" and the
  // subscriptionId, nothing else. Over HTTP this is how a client tells a graceful end from a
  // broken connection (notifications/cancelled naming the listen is stdio's form of it).
  static std::string ended(std::string_view id_json);
  // A notification for a session's stream: for the stream of listen `id_json`, `params` plus the
  // _meta naming the listen (beside what a _meta of `params` carries already); when `id_json` is
  // empty (a 2025 session's GET stream), `params` as they are.
  static std::string notification(std::string_view method, std::string_view id_json, json::Document params);

 private:
  static constexpr std::string_view kToolsChanged = "notifications/tools/list_changed";
  static constexpr std::string_view kResourcesChanged = "notifications/resources/list_changed";
  size_t tell(const std::string& tenant, bool ListenFilter::*asked, std::string_view method);

  struct Listen {
    std::shared_ptr<ListenSink> sink;
    std::string id_json;
    ListenFilter filter;
  };
  std::mutex mutex_;
  std::multimap<std::string, Listen> by_tenant_;
};

}  // namespace fleetmcp::http
