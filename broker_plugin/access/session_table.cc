#include "broker_plugin/access/session_table.h"

namespace fleetmcp::plugin {

Session* SessionTable::find(const void* handle, std::string_view client_id) {
  const auto it = sessions_.find(handle);
  if (it == sessions_.end() || it->second.client_id != client_id) return nullptr;
  return &it->second;
}

Session& SessionTable::put(const void* handle, Session session) {
  Session& slot = sessions_[handle];
  slot = std::move(session);
  return slot;
}

Session* SessionTable::end(const void* handle) {
  const auto it = sessions_.find(handle);
  if (it == sessions_.end()) return nullptr;
  if (!it->second.ended) ended_.push_back(handle);
  it->second.ended = true;
  return &it->second;
}

void SessionTable::drop_ended() {
  for (const void* handle : ended_) {
    const auto it = sessions_.find(handle);
    if (it != sessions_.end() && it->second.ended) sessions_.erase(it);
  }
  ended_.clear();
}

void SessionTable::for_each(const std::function<void(const void*, Session&)>& visit) {
  for (auto& [handle, session] : sessions_) visit(handle, session);
}

}  // namespace fleetmcp::plugin
