// The command path's bookkeeping (docs/protocol.md §4, D8: the per-node call table of the seeds' Durable
// Object). Calls are submitted from any thread into a queue that the broker thread drains on
// MOSQ_EVT_TICK; submit() runs the wake function (the loopback waker's 0-byte publish) so the
// broker loop turns at once instead of within 100 ms, once per batch the tick will take.
// Everything past the queue is broker-thread only: pending calls by msg_id, their deadlines,
// recently finished ids so a late cmd_ack is recognised, dropped and audited, and the ids of cmds
// a bridge relayed to a node here.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "broker_plugin/calls/recent_ids.h"
#include "common/base/error.h"
#include "common/base/string_map.h"

namespace fleetmcp::plugin {

struct CallResult {
  bool ok = false;
  std::string result_json;  // when ok: the tool's result object
  ErrorEnvelope error;      // when not
  std::string node_id, tool, msg_id;
  int64_t latency_ms = 0;
};

// Runs on the broker thread; must not block.
using CallDone = std::function<void(const CallResult&)>;

struct CallRequest {
  std::string tool;            // dotted or dashed (docs/protocol.md D9)
  std::string arguments_json;  // a JSON object
  std::string caller, tenant;  // the authenticated agent: calls reach only its tenant's nodes
  uint32_t scopes = 0;         // ScopeBit
  CallDone on_done;
  int64_t submitted_at_ms = 0;  // set by submit()
  bool audited_by_caller = false;  // the HTTP front writes its own line (with "via"): skip ours
  // The $CONTROL driver has neither two-phase confirmation nor per-caller rate limits: a verb
  // that needs tools:call:physical_actuation is refused on it (issue 17), whatever the token.
  bool without_safeguards = false;
  // The submitter has validated arguments_json against the tool's input schema: the HTTP front's
  // gate does, for the tool it resolved from the same name, hence the same kind, verb and schema.
  // dispatch then does not validate them a second time. The $CONTROL driver leaves it false.
  bool arguments_validated = false;
};

struct PendingCall {
  std::string msg_id, node_id, tool;
  // The verb's output schema id, in the plugin's schema registry (which outlives every call).
  std::string_view output_schema;
  int64_t deadline_at_ms = 0;
  // Not a read (required_scope above tools:call:read_only): a call that timed out may have acted.
  bool changes_state = false;
  CallRequest request;
};

class CallTable {
 public:
  // How long, and how many, finished calls are remembered so that an ack arriving after its
  // call ended is audited as late rather than as answering no call (dropped either way). Each
  // costs ~150 bytes: with 10 minutes and no count bound, 40 calls/s held 3.5 MiB (the soak saw
  // it as growth) and the 5,000 calls/s of docs/protocol.md §10 would hold ~450 MiB.
  static constexpr int64_t kLateAckWindowMs = 2 * 60 * 1000;
  static constexpr size_t kLateAckMemory = 65536;

  // Any thread. Runs the wake function when the inbox was empty (a wake is already on its way
  // otherwise). `wake` false from the broker thread itself: the tick runs at the end of the
  // current loop turn anyway.
  void submit(CallRequest request, int64_t now_ms, bool wake = true);
  // Set once, before any thread submits.
  void set_wake(std::function<void()> wake) { wake_ = std::move(wake); }

  // Broker thread from here on.
  // Swaps the calls submitted so far into `batch`, which must be empty. The inbox keeps batch's
  // capacity: a caller that hands in the same vector every time spares each submit an allocation.
  void take_submitted(std::vector<CallRequest>& batch);
  void add(PendingCall call);
  // The pending call `in_reply_to` names, if it was sent to `node_id` (correlation by both).
  std::optional<PendingCall> take_answered(std::string_view node_id, std::string_view in_reply_to);
  // Calls past their deadline, oldest first.
  std::vector<PendingCall> take_overdue(int64_t now_ms);
  // Calls waiting on `node_id` (its session ended).
  std::vector<PendingCall> take_for_node(std::string_view node_id);
  // `msg_id` belonged to a call that already finished: an ack for it is late.
  bool finished_recently(std::string_view msg_id) const { return finished_.contains(msg_id); }
  void remember_finished(std::string_view msg_id, int64_t now_ms) { finished_.add(msg_id, now_ms); }
  // A cmd for a node here that another broker sent over a bridge (docs/protocol.md §12): its cmd_ack
  // answers that broker's call, which the bridge carries back.
  bool relayed(std::string_view msg_id) const { return relayed_.contains(msg_id); }
  void remember_relayed(std::string_view msg_id, int64_t now_ms) { relayed_.add(msg_id, now_ms); }
  size_t pending() const { return pending_.size(); }

 private:
  std::mutex inbox_mutex_;
  std::vector<CallRequest> inbox_;
  std::function<void()> wake_;

  StringMap<PendingCall> pending_;  // by msg_id, looked up by an ack's in_reply_to as it is
  // (deadline, msg_id) of every pending call, the id a view of the PendingCall's own msg_id: a
  // map's value stays where it is until erased, and an entry here is erased first.
  std::set<std::pair<int64_t, std::string_view>> deadlines_;
  RecentIds finished_{kLateAckWindowMs, kLateAckMemory};
  RecentIds relayed_{kLateAckWindowMs, kLateAckMemory};
};

}  // namespace fleetmcp::plugin
