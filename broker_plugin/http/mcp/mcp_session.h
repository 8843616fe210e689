// MCP sessions (Streamable HTTP, 2025-03-26 … 2025-11-25): created by initialize and named by
// the Mcp-Session-Id header from then on, bound to the agent that created it (another token's
// requests see it as unknown: 404), ended by DELETE, after idling, by a newer session of its
// caller (quota) or when the front stops. A session knows its negotiated revision, its requests
// in flight (so notifications/cancelled can stop them, and its end can answer them) and its GET
// stream, the only place notifications/tools/list_changed can go. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "broker_plugin/http/base/mcp_revision.h"
#include "broker_plugin/http/stateless/listen_streams.h"
#include "common/crypto/agent_token.h"
#include "common/base/error.h"
#include "common/base/result.h"

namespace fleetmcp::http {

// The session's GET stream, as the session sees it.
class SessionListener {
 public:
  virtual ~SessionListener() = default;
  virtual void notify(std::string message_json) = 0;  // any thread
  virtual void close() = 0;                            // any thread
};

// RFC 5424 severities as MCP logging/setLevel names them, most verbose first.
int log_level_rank(std::string_view level);  // -1 when unknown

// Why a session ended.
enum class SessionEnd {
  kDeleted,   // the client's DELETE
  kReplaced,  // its caller started a session past its quota: the oldest goes (McpSessions::create)
  kIdle,      // idle for plugin_opt_http_session_idle_ms with nothing open
  kShutdown,  // the front is stopping (the broker is shutting down)
  kStreamEnded,  // a 2026-07-28 listen stream's session: its stream ended (mcp_get_stream.h)
};

// How far a call had gone when its session ended, which decides what its answer says.
enum class EndedCall {
  kRead,     // sent, and it only reads (tool_hints.h): calling it again is safe
  kActing,   // sent, and it may change the device: it may have run, its outcome is unknown
  kNotSent,  // still waiting for the user's confirmation (elicitation.h): nothing reached the device
};

// What a request still in flight is answered when its session ends under it (issue 24, item 4;
// issue 33, item 2): the session is gone but the HTTP request is open, so it gets an answer rather
// than an empty reply. E_NODE_OFFLINE, docs/protocol.md §9's code for "unavailable", as the REST
// answer to a call in flight at shutdown. For an acting call the message says its outcome is
// unknown and the fix to read the state before repeating it.
ErrorEnvelope session_end_error(SessionEnd why, EndedCall call);

// A 2026-07-28 listen stream's session is a ListenSink (stateless/listen_streams.h): the table
// tells it through notify() and ends it with the front.
class McpSession final : public ListenSink {
 public:
  McpSession(std::string id, const AgentToken& agent, McpRevision revision, int64_t now_ms);

  const std::string& id() const { return id_; }
  const std::string& caller() const { return caller_; }
  const std::string& tenant() const override { return tenant_; }
  McpRevision revision() const { return revision_; }
  bool owned_by(const AgentToken& agent) const { return agent.sub == caller_ && agent.tenant == tenant_; }

  void touch(int64_t now_ms) { last_seen_ms_.store(now_ms); }
  int64_t last_seen_ms() const { return last_seen_ms_.load(); }
  bool busy() const;  // requests in flight or a GET stream open

  // How a request in flight is stopped: with nullopt when the client cancelled it
  // (notifications/cancelled: no response is sent, as the spec says), or with why its session
  // ended (it is answered: session_end_error).
  using Stop = std::function<void(std::optional<SessionEnd>)>;
  // Requests in flight, by JSON-RPC id text. `stop` runs outside the session's lock; at once when
  // the session has already ended (a request that raced its session's end).
  void track(const std::string& id, Stop stop);
  void untrack(const std::string& id);
  void cancel(const std::string& id);
  bool tracks(const std::string& id) const;

  // False when a GET stream is already open (the transport answers 409).
  bool attach(std::shared_ptr<SessionListener> listener);
  void detach(const SessionListener* listener);
  void notify(const std::string& message_json) override;
  bool streaming() const override;  // a GET stream is open (server requests can reach the client)

  void set_log_level(std::string_view level) { log_rank_.store(log_level_rank(level)); }
  bool logs(std::string_view level) const { return log_level_rank(level) >= log_rank_.load(); }

  // Stops every request in flight (answering it, see Stop) and closes the GET stream.
  void end(SessionEnd why);
  void end_stream() override { end(SessionEnd::kShutdown); }

 private:
  const std::string id_, caller_, tenant_;
  const McpRevision revision_;
  std::atomic<int64_t> last_seen_ms_;
  std::atomic<int> log_rank_{1};  // "info": metric samples go out as notifications/message
  mutable std::mutex mutex_;
  std::map<std::string, Stop> in_flight_;
  std::shared_ptr<SessionListener> listener_;
  std::optional<SessionEnd> ended_;
};

// Why initialize got no session: the whole table is full (503), or the caller's tenant holds its
// quota of sessions and the caller has none of its own to give up (429).
enum class SessionRefusal { kTableFull, kTenantQuota };

// Sessions per caller (token subject within its tenant) and per tenant (issue 17, item 5), so one
// token cannot fill the table: a caller at its own quota, or whose tenant or the table is full,
// gets a new session in place of its own oldest one (ended: SessionEnd::kReplaced).
struct SessionQuota {
  size_t per_caller = 32;
  size_t per_tenant = 1000;
};

class McpSessions {
 public:
  explicit McpSessions(size_t max_sessions, SessionQuota quota = {}) : max_(max_sessions), quota_(quota) {}

  Result<std::shared_ptr<McpSession>, SessionRefusal> create(const AgentToken& agent, McpRevision revision,
                                                             int64_t now_ms);
  std::shared_ptr<McpSession> find(std::string_view id) const;
  // DELETE: false when unknown.
  bool end(std::string_view id);
  std::vector<std::shared_ptr<McpSession>> of_tenant(std::string_view tenant) const;
  std::vector<std::string> tenants() const;
  // Ends sessions idle for longer than idle_ms with nothing open.
  size_t sweep(int64_t now_ms, int64_t idle_ms);
  void end_all(SessionEnd why);
  size_t size() const;

 private:
  // Removes the session from the table and the indexes below (the caller ends it, unlocked).
  std::shared_ptr<McpSession> forget_locked(std::string_view id);

  size_t max_;
  SessionQuota quota_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<McpSession>, std::less<>> sessions_;
  std::unordered_map<std::string, std::deque<std::string>> by_caller_;  // ids, oldest first
  std::unordered_map<std::string, size_t> per_tenant_;
};

}  // namespace fleetmcp::http
