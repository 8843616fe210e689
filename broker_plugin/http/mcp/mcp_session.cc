#include "broker_plugin/http/mcp/mcp_session.h"

#include <sodium.h>

#include <array>
#include <set>

#include "common/base/bytes.h"

namespace fleetmcp::http {
namespace {

constexpr std::array<std::string_view, 8> kLevels{"debug", "info", "notice", "warning",
                                                  "error", "critical", "alert", "emergency"};

// 128 random bits, base64url: visible ASCII as the transport requires, and unguessable.
std::string new_session_id() {
  std::array<uint8_t, 16> random{};
  randombytes_buf(random.data(), random.size());
  return base64url_encode(random);
}

std::string session_caller_key(std::string_view tenant, std::string_view sub) {
  return std::string(tenant) + '\n' + std::string(sub);
}

}  // namespace

int log_level_rank(std::string_view level) {
  for (size_t i = 0; i < kLevels.size(); ++i) {
    if (kLevels[i] == level) return static_cast<int>(i);
  }
  return -1;
}

ErrorEnvelope session_end_error(SessionEnd why, EndedCall call) {
  std::string message = "the MCP session ended before this call was answered: ";
  switch (why) {
    case SessionEnd::kDeleted: message += "the client ended it (DELETE)"; break;
    case SessionEnd::kReplaced:
      message += "its token started more sessions than plugin_opt_http_max_sessions_per_caller allows, and it was "
                 "the oldest";
      break;
    case SessionEnd::kIdle: message += "it was idle for plugin_opt_http_session_idle_ms"; break;
    case SessionEnd::kShutdown: message += "the broker is shutting down"; break;
    case SessionEnd::kStreamEnded: message += "the subscriptions/listen stream it served ended"; break;
  }
  if (call == EndedCall::kActing) message += "; the device may have run the call: its outcome is unknown";
  if (call == EndedCall::kNotSent) message += "; it was waiting for the user's confirmation: nothing was sent to the device";
  std::string fix = call != EndedCall::kActing
                        ? "call it again in a new session (initialize)"
                        : "read the device's state before repeating the call in a new session (initialize): it may have run";
  if (why == SessionEnd::kShutdown) fix += ", once the broker is back";
  return ErrorEnvelope(ErrorCode::kNodeOffline, message, fix);
}

McpSession::McpSession(std::string id, const AgentToken& agent, McpRevision revision, int64_t now_ms)
    : id_(std::move(id)), caller_(agent.sub), tenant_(agent.tenant), revision_(revision), last_seen_ms_(now_ms) {}

bool McpSession::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !in_flight_.empty() || listener_ != nullptr;
}

void McpSession::track(const std::string& id, Stop stop) {
  std::optional<SessionEnd> ended;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ended = ended_;
    if (!ended) in_flight_[id] = std::move(stop);
  }
  if (ended && stop) stop(ended);
}

void McpSession::untrack(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  in_flight_.erase(id);
}

void McpSession::cancel(const std::string& id) {
  Stop stop;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = in_flight_.find(id);
    if (it == in_flight_.end()) return;  // unknown or finished: ignored, as the spec says
    stop = std::move(it->second);
    in_flight_.erase(it);
  }
  if (stop) stop(std::nullopt);
}

bool McpSession::tracks(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_flight_.contains(id);
}

bool McpSession::streaming() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return listener_ != nullptr;
}

bool McpSession::attach(std::shared_ptr<SessionListener> listener) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (listener_) return false;
  listener_ = std::move(listener);
  return true;
}

void McpSession::detach(const SessionListener* listener) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (listener_.get() == listener) listener_.reset();
}

void McpSession::notify(const std::string& message_json) {
  std::shared_ptr<SessionListener> listener;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    listener = listener_;
  }
  if (listener) listener->notify(message_json);
}

void McpSession::end(SessionEnd why) {
  std::map<std::string, Stop> in_flight;
  std::shared_ptr<SessionListener> listener;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ended_) return;
    ended_ = why;
    in_flight.swap(in_flight_);
    listener = std::move(listener_);
  }
  for (auto& [id, stop] : in_flight) {
    if (stop) stop(why);
  }
  if (listener) listener->close();
}

Result<std::shared_ptr<McpSession>, SessionRefusal> McpSessions::create(const AgentToken& agent,
                                                                         McpRevision revision, int64_t now_ms) {
  const std::string caller = session_caller_key(agent.tenant, agent.sub);
  std::shared_ptr<McpSession> evicted;
  auto session = std::make_shared<McpSession>(new_session_id(), agent, revision, now_ms);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto mine = by_caller_.find(caller);
    const size_t own = mine == by_caller_.end() ? 0 : mine->second.size();
    const auto tenant = per_tenant_.find(agent.tenant);
    const bool tenant_full = tenant != per_tenant_.end() && tenant->second >= quota_.per_tenant;
    const bool table_full = sessions_.size() >= max_;
    if (own >= quota_.per_caller || ((tenant_full || table_full) && own > 0)) {
      evicted = forget_locked(std::string(mine->second.front()));  // the caller's own oldest
    } else if (tenant_full) {
      return SessionRefusal::kTenantQuota;
    } else if (table_full) {
      return SessionRefusal::kTableFull;
    }
    sessions_.emplace(session->id(), session);
    by_caller_[caller].push_back(session->id());
    ++per_tenant_[agent.tenant];
  }
  if (evicted) evicted->end(SessionEnd::kReplaced);
  return session;
}

std::shared_ptr<McpSession> McpSessions::forget_locked(std::string_view id) {
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  auto session = std::move(it->second);
  sessions_.erase(it);
  const auto mine = by_caller_.find(session_caller_key(session->tenant(), session->caller()));
  if (mine != by_caller_.end()) {
    std::erase(mine->second, session->id());
    if (mine->second.empty()) by_caller_.erase(mine);
  }
  const auto tenant = per_tenant_.find(session->tenant());
  if (tenant != per_tenant_.end() && --tenant->second == 0) per_tenant_.erase(tenant);
  return session;
}

std::shared_ptr<McpSession> McpSessions::find(std::string_view id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

bool McpSessions::end(std::string_view id) {
  std::shared_ptr<McpSession> session;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    session = forget_locked(id);
  }
  if (!session) return false;
  session->end(SessionEnd::kDeleted);
  return true;
}

std::vector<std::shared_ptr<McpSession>> McpSessions::of_tenant(std::string_view tenant) const {
  std::vector<std::shared_ptr<McpSession>> out;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [id, s] : sessions_) {
    if (s->tenant() == tenant) out.push_back(s);
  }
  return out;
}

std::vector<std::string> McpSessions::tenants() const {
  std::set<std::string> out;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [id, s] : sessions_) out.insert(s->tenant());
  return {out.begin(), out.end()};
}

size_t McpSessions::sweep(int64_t now_ms, int64_t idle_ms) {
  std::vector<std::shared_ptr<McpSession>> expired;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> idle;
    for (const auto& [id, s] : sessions_) {
      if (now_ms - s->last_seen_ms() > idle_ms && !s->busy()) idle.push_back(id);
    }
    for (const auto& id : idle) expired.push_back(forget_locked(id));
  }
  for (auto& s : expired) s->end(SessionEnd::kIdle);
  return expired.size();
}

void McpSessions::end_all(SessionEnd why) {
  std::map<std::string, std::shared_ptr<McpSession>, std::less<>> all;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    all.swap(sessions_);
    by_caller_.clear();
    per_tenant_.clear();
  }
  for (auto& [id, s] : all) s->end(why);
}

size_t McpSessions::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sessions_.size();
}

}  // namespace fleetmcp::http
