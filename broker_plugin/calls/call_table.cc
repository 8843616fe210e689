#include "broker_plugin/calls/call_table.h"

namespace fleetmcp::plugin {

void CallTable::submit(QueuedCall call, int64_t now_ms, bool wake) {
  call.submitted_at_ms = now_ms;
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(inbox_mutex_);
    first = inbox_.empty();
    inbox_.push_back(std::move(call));
  }
  // Only the call that finds the inbox empty wakes the broker: the tick that wake causes comes
  // after every push until the next take_submitted(), so it takes the later calls too. Under load
  // this saves the waker's publish (and the broker loop's turn for it) for most calls.
  if (first && wake && wake_) wake_();
}

void CallTable::take_submitted(std::vector<QueuedCall>& batch) {
  std::lock_guard<std::mutex> lock(inbox_mutex_);
  batch.swap(inbox_);
}

void CallTable::add(SentCall call) {
  std::string id = call.msg_id;
  const auto [it, added] = pending_.emplace(std::move(id), std::move(call));
  if (added) deadlines_.emplace(it->second.deadline_at_ms, it->second.msg_id);
}

std::optional<SentCall> CallTable::take_answered(std::string_view node_id, std::string_view in_reply_to) {
  const auto it = pending_.find(in_reply_to);
  if (it == pending_.end() || it->second.node_id() != node_id) return std::nullopt;
  deadlines_.erase({it->second.deadline_at_ms, it->second.msg_id});
  SentCall call = std::move(it->second);
  pending_.erase(it);
  return call;
}

std::vector<SentCall> CallTable::take_overdue(int64_t now_ms) {
  std::vector<SentCall> overdue;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    const auto it = pending_.find(deadlines_.begin()->second);
    deadlines_.erase(deadlines_.begin());
    if (it == pending_.end()) continue;
    overdue.push_back(std::move(it->second));
    pending_.erase(it);
  }
  return overdue;
}

std::vector<SentCall> CallTable::take_for_node(std::string_view node_id) {
  std::vector<SentCall> taken;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.node_id() != node_id) {
      ++it;
      continue;
    }
    deadlines_.erase({it->second.deadline_at_ms, it->second.msg_id});
    taken.push_back(std::move(it->second));
    it = pending_.erase(it);
  }
  return taken;
}

}  // namespace fleetmcp::plugin
