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
#include "common/protocol/tool_call.h"

namespace fleetmcp::plugin {

// A call waiting in the inbox for the broker thread.
struct QueuedCall {
  CallRequest request;
  CallDone done;  // runs on the broker thread
  // The $CONTROL agent's scope bits (ScopeBit), which the core checks for a kControl call. A call
  // from the HTTP front carries none: the front checked the token's scopes (CallOrigin).
  uint32_t control_scopes = 0;
  int64_t submitted_at_ms = 0;  // set by submit()
};

// A call whose `cmd` went to its node, waiting for the node's cmd_ack.
struct SentCall {
  std::string msg_id;
  // The verb's output schema id, in the plugin's schema registry (which outlives every call).
  std::string_view output_schema;
  int64_t deadline_at_ms = 0;
  // Not a read (required_scope above tools:call:read_only): a call that timed out may have acted.
  bool changes_state = false;
  QueuedCall queued;

  const std::string& node_id() const { return queued.request.node_id; }
  const std::string& tool() const { return queued.request.tool; }  // the dotted name the cmd carries
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
  void submit(QueuedCall call, int64_t now_ms, bool wake = true);
  // Set once, before any thread submits.
  void set_wake(std::function<void()> wake) { wake_ = std::move(wake); }

  // Broker thread from here on.
  // Swaps the calls submitted so far into `batch`, which must be empty. The inbox keeps batch's
  // capacity: a caller that hands in the same vector every time spares each submit an allocation.
  void take_submitted(std::vector<QueuedCall>& batch);
  void add(SentCall call);
  // The pending call `in_reply_to` names, if it was sent to `node_id` (correlation by both).
  std::optional<SentCall> take_answered(std::string_view node_id, std::string_view in_reply_to);
  // Calls past their deadline, oldest first.
  std::vector<SentCall> take_overdue(int64_t now_ms);
  // Calls waiting on `node_id` (its session ended).
  std::vector<SentCall> take_for_node(std::string_view node_id);
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
  std::vector<QueuedCall> inbox_;
  std::function<void()> wake_;

  StringMap<SentCall> pending_;  // by msg_id, looked up by an ack's in_reply_to as it is
  // (deadline, msg_id) of every pending call, the id a view of the SentCall's own msg_id: a
  // map's value stays where it is until erased, and an entry here is erased first.
  std::set<std::pair<int64_t, std::string_view>> deadlines_;
  RecentIds finished_{kLateAckWindowMs, kLateAckMemory};
  RecentIds relayed_{kLateAckWindowMs, kLateAckMemory};
};

}  // namespace fleetmcp::plugin
