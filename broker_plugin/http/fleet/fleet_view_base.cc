#include "broker_plugin/http/fleet/fleet_view_base.h"

#include <algorithm>

namespace fleetmcp::http {
namespace {

class Watch final : public TelemetryWatch {
 public:
  explicit Watch(std::function<void()> remove) : remove_(std::move(remove)) {}
  ~Watch() override { remove_(); }

 private:
  std::function<void()> remove_;
};

}  // namespace

FleetViewBase::FleetViewBase() : snapshot_(std::make_shared<FleetSnapshot>(0, std::vector<FleetNode>{})) {}

FleetViewBase::~FleetViewBase() = default;

std::shared_ptr<const FleetSnapshot> FleetViewBase::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return snapshot_;
}

void FleetViewBase::set_change_listener(std::function<void()> on_change) {
  std::lock_guard<std::mutex> lock(mutex_);
  listener_ = std::move(on_change);
}

void FleetViewBase::publish(std::shared_ptr<const FleetSnapshot> next) {
  set_snapshot(std::move(next));
  notify_listener();
}

void FleetViewBase::set_snapshot(std::shared_ptr<const FleetSnapshot> next) {
  std::lock_guard<std::mutex> lock(mutex_);
  snapshot_ = std::move(next);
}

void FleetViewBase::notify_listener() const {
  std::function<void()> listener;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    listener = listener_;
  }
  if (listener) listener();
}

std::unique_ptr<TelemetryWatch> FleetViewBase::watch_telemetry(std::string_view node_id, TelemetryHandler handler) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t id = next_watch_++;
  const std::string node(node_id);
  watchers_[node].push_back(Watcher{id, std::make_shared<TelemetryHandler>(std::move(handler))});
  return std::make_unique<Watch>([this, alive = std::weak_ptr<bool>(alive_), node, id] {
    if (!alive.lock()) return;
    std::lock_guard<std::mutex> guard(mutex_);
    auto& list = watchers_[node];
    std::erase_if(list, [id](const Watcher& w) { return w.id == id; });
    if (list.empty()) watchers_.erase(node);
  });
}

std::vector<std::shared_ptr<TelemetryHandler>> FleetViewBase::watchers_of(std::string_view node_id) const {
  std::vector<std::shared_ptr<TelemetryHandler>> out;
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto it = watchers_.find(node_id); it != watchers_.end()) {
    for (const auto& w : it->second) out.push_back(w.handler);
  }
  return out;
}

size_t FleetViewBase::watcher_count(std::string_view node_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = watchers_.find(node_id);
  return it == watchers_.end() ? 0 : it->second.size();
}

}  // namespace fleetmcp::http
