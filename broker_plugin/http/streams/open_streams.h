// The long-lived SSE streams of the front (RFC-0009 metrics streams, MCP GET streams and MCP
// metrics streams), by the agent that opened them (issue 17, items 5 and 6; issue 24, item 5):
//   - quotas: at most per_caller streams per token subject and per_tenant per tenant, so one
//     token cannot hold every connection the front may have; a stream past a quota is refused
//     (RFC-0009: close code 4429; MCP GET: HTTP 429; MCP tools/call: an isError result,
//     E_RATE_LIMITED);
//   - re-checks: a stream must not outlive the token that opened it. check() (run every second
//     by the front) stops the streams whose token has passed its exp, whose token was revoked
//     (the revocation list is re-read on SIGHUP), or that are older than max_lifetime.
// open() and a ticket's release are hash-map operations; check() walks the open streams, off
// the request path. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/crypto/agent_token.h"
#include "common/base/error.h"

namespace fleetmcp::http {

enum class StreamStop { kTokenExpired, kTokenRevoked, kLifetime };
// The last answer of an MCP metrics stream stopped for `why` (E_SAFETY_DENIED for its token,
// E_DEADLINE_EXCEEDED for its lifetime).
ErrorEnvelope stream_stop_error(StreamStop why);
// The refusal of a metrics stream past a quota: E_RATE_LIMITED naming the options.
ErrorEnvelope stream_quota_error();

struct StreamQuota {
  size_t per_caller = 16;
  size_t per_tenant = 256;
  std::chrono::milliseconds max_lifetime{std::chrono::hours(1)};
};

class OpenStreams : public std::enable_shared_from_this<OpenStreams> {
 public:
  // One open stream's place; gives it back when destroyed.
  class Ticket {
   public:
    Ticket(std::shared_ptr<OpenStreams> streams, uint64_t id) : streams_(std::move(streams)), id_(id) {}
    ~Ticket() { streams_->release(id_); }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;

   private:
    std::shared_ptr<OpenStreams> streams_;
    uint64_t id_;
  };
  using Stop = std::function<void(StreamStop)>;  // called at most once, from check()'s thread

  explicit OpenStreams(StreamQuota quota) : quota_(quota) {}

  // Null when the agent's subject or tenant is at its quota.
  std::unique_ptr<Ticket> open(const AgentToken& agent, int64_t now_ms, Stop stop);
  // Stops the streams that must end now (see above); returns how many.
  size_t check(int64_t now_ms, const std::function<bool(std::string_view jti)>& revoked);
  size_t size() const;

 private:
  struct Entry {
    std::string caller, tenant, jti;
    int64_t exp_ms = 0, deadline_ms = 0;
    Stop stop;  // emptied once called
  };
  void release(uint64_t id);

  const StreamQuota quota_;
  mutable std::mutex mutex_;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, Entry> entries_;
  std::unordered_map<std::string, size_t> per_caller_, per_tenant_;
};

}  // namespace fleetmcp::http
