// Counters of what the plugin decided, readable from any thread: the HTTP front's /metrics
// (fleetmcp_mqtt_refusals_total, from mqtt_refusals()) and the $CONTROL test driver report them.
// They count every event, also those whose audit line was throttled.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/base/error.h"

namespace fleetmcp::plugin {

struct PluginCounters {
  using Counter = std::atomic<uint64_t>;

  Counter auth_accepted{0}, auth_refused{0};
  Counter acl_denied_read{0}, acl_denied_write{0}, acl_denied_subscribe{0};
  Counter announces_accepted{0}, announces_refused{0}, announce_cache_hits{0}, deregistrations{0};
  Counter restored_verified{0}, restored_cleared{0};
  Counter manifests_expired{0}, nodes_revoked{0}, clients_kicked{0};
  Counter calls_submitted{0}, calls_ok{0}, calls_failed{0}, calls_timed_out{0}, late_acks{0};
  Counter acks_malformed{0}, acks_unmatched{0};  // dropped cmd_acks: not cmd_ack@1.0.0, answering no call
  Counter bridged_announces{0}, bridged_refused{0}, bridged_dropped{0}, relayed_cmds{0};  // docs/protocol.md §12
  Counter audit_lines_throttled{0};  // drop/deny/refuse lines not written when they happened (a later line counts them)
  Counter ticks{0};  // broker loop turns: the waker's check that MOSQ_EVT_TICK runs (not a decision, not reported)
  std::array<Counter, 11> announces_refused_by_code{};  // indexed by ErrorCode

  void count_refusal(ErrorCode code);
  std::string to_json() const;
  // What the plugin refused, denied or dropped, by what (/metrics's `what` label).
  std::vector<std::pair<std::string_view, uint64_t>> mqtt_refusals() const;
};

inline void bump(std::atomic<uint64_t>& counter) { counter.fetch_add(1, std::memory_order_relaxed); }

}  // namespace fleetmcp::plugin
