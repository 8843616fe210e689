#include "broker_plugin/call_table.h"

namespace fleetmcp::plugin {

void CallTable::submit(CallRequest request, int64_t now_ms, bool wake) {
  request.submitted_at_ms = now_ms;
  {
    std::lock_guard<std::mutex> lock(inbox_mutex_);
    inbox_.push_back(std::move(request));
  }
  if (wake && wake_) wake_();
}

std::vector<CallRequest> CallTable::take_submitted() {
  std::vector<CallRequest> taken;
  std::lock_guard<std::mutex> lock(inbox_mutex_);
  taken.swap(inbox_);
  return taken;
}

void CallTable::add(PendingCall call) {
  deadlines_.emplace(call.deadline_at_ms, call.msg_id);
  std::string id = call.msg_id;
  pending_.emplace(std::move(id), std::move(call));
}

std::optional<PendingCall> CallTable::take_answered(std::string_view node_id, std::string_view in_reply_to) {
  const auto it = pending_.find(std::string(in_reply_to));
  if (it == pending_.end() || it->second.node_id != node_id) return std::nullopt;
  PendingCall call = std::move(it->second);
  pending_.erase(it);
  deadlines_.erase({call.deadline_at_ms, call.msg_id});
  return call;
}

std::vector<PendingCall> CallTable::take_overdue(int64_t now_ms) {
  std::vector<PendingCall> overdue;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    const auto it = pending_.find(deadlines_.begin()->second);
    deadlines_.erase(deadlines_.begin());
    if (it == pending_.end()) continue;
    overdue.push_back(std::move(it->second));
    pending_.erase(it);
  }
  return overdue;
}

std::vector<PendingCall> CallTable::take_for_node(std::string_view node_id) {
  std::vector<PendingCall> taken;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.node_id != node_id) {
      ++it;
      continue;
    }
    deadlines_.erase({it->second.deadline_at_ms, it->second.msg_id});
    taken.push_back(std::move(it->second));
    it = pending_.erase(it);
  }
  return taken;
}

bool CallTable::finished_recently(std::string_view msg_id) const { return finished_.count(std::string(msg_id)) != 0; }

void CallTable::remember_finished(const std::string& msg_id, int64_t now_ms) {
  while (!finished_order_.empty() &&
         (finished_order_.front().first + kLateAckWindowMs < now_ms || finished_order_.size() >= kLateAckMemory)) {
    finished_.erase(finished_order_.front().second);
    finished_order_.pop_front();
  }
  if (finished_.insert(msg_id).second) finished_order_.emplace_back(now_ms, msg_id);
}

}  // namespace fleetmcp::plugin
