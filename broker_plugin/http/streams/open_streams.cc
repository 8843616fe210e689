#include "broker_plugin/http/streams/open_streams.h"

#include <optional>
#include <utility>
#include <vector>

namespace fleetmcp::http {
namespace {

std::string caller_key(const AgentToken& agent) { return agent.tenant + '\n' + agent.sub; }

void decrement(std::unordered_map<std::string, size_t>& counts, const std::string& key) {
  const auto it = counts.find(key);
  if (it != counts.end() && --it->second == 0) counts.erase(it);
}

std::string_view stream_stop_reason(StreamStop why) {
  switch (why) {
    case StreamStop::kTokenExpired: return "the token has expired";
    case StreamStop::kTokenRevoked: return "the token has been revoked";
    case StreamStop::kLifetime: return "the stream reached plugin_opt_http_max_stream_ms";
  }
  return "";
}

}  // namespace

ErrorEnvelope stream_stop_error(StreamStop why) {
  const std::string message = "the metrics stream ended: " + std::string(stream_stop_reason(why));
  if (why == StreamStop::kLifetime) return ErrorEnvelope(ErrorCode::kDeadlineExceeded, message, "call again to continue");
  return ErrorEnvelope(ErrorCode::kSafetyDenied, message, "call again with a valid token (fleetctl token issue)");
}

ErrorEnvelope stream_quota_error() {
  ErrorEnvelope e(ErrorCode::kRateLimited, "this token or its tenant holds its quota of metrics streams",
                  "close another metrics stream of this token or tenant first "
                  "(plugin_opt_http_max_streams_per_caller, plugin_opt_http_max_streams_per_tenant)");
  // A place frees when a stream ends, which no one can predict; a few seconds keeps a polling
  // agent's refusals cheap.
  e.retry_after_ms = 5000;
  return e;
}

std::unique_ptr<OpenStreams::Ticket> OpenStreams::open(const AgentToken& agent, int64_t now_ms, Stop stop) {
  std::string caller = caller_key(agent);
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto mine = per_caller_.find(caller);
    const auto tenants = per_tenant_.find(agent.tenant);
    if ((mine != per_caller_.end() && mine->second >= quota_.per_caller) ||
        (tenants != per_tenant_.end() && tenants->second >= quota_.per_tenant)) {
      return nullptr;
    }
    ++per_caller_[caller];
    ++per_tenant_[agent.tenant];
    id = next_id_++;
    entries_.emplace(id, Entry{std::move(caller), agent.tenant, agent.jti, agent.exp * 1000,
                               now_ms + quota_.max_lifetime.count(), std::move(stop)});
  }
  return std::make_unique<Ticket>(shared_from_this(), id);
}

void OpenStreams::release(uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(id);
  if (it == entries_.end()) return;
  decrement(per_caller_, it->second.caller);
  decrement(per_tenant_, it->second.tenant);
  entries_.erase(it);
}

size_t OpenStreams::check(int64_t now_ms, const std::function<bool(std::string_view jti)>& revoked) {
  std::vector<std::pair<Stop, StreamStop>> due;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [id, e] : entries_) {
      if (!e.stop) continue;  // already told; its ticket goes when the stream has closed
      std::optional<StreamStop> why;
      if (now_ms >= e.exp_ms) why = StreamStop::kTokenExpired;
      else if (revoked(e.jti)) why = StreamStop::kTokenRevoked;
      else if (now_ms >= e.deadline_ms) why = StreamStop::kLifetime;
      if (why) due.emplace_back(std::exchange(e.stop, nullptr), *why);
    }
  }
  for (auto& [stop, why] : due) stop(why);  // outside the lock: a stop may release its ticket
  return due.size();
}

size_t OpenStreams::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace fleetmcp::http
