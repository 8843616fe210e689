// subscriptions/listen (MCP 2026-07-28): with no session to hold a GET stream, a client asks for the
// change notifications it wants in a request of their own, whose SSE response stays open. This is
// where the list_changed notifier (mcp/list_changed.h) finds those streams by tenant. The first
// message on a stream is notifications/subscriptions/acknowledged with the filter honoured; every
// later one carries _meta["io.modelcontextprotocol/subscriptionId"], the listen request's id.
// Honoured: toolsListChanged and resourcesListChanged (docs/http-front.md "Revisions" says what
// is not). Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

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
  bool tools = false;      // toolsListChanged
  bool resources = false;  // resourcesListChanged
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
