#include "broker_plugin/http/plugin_view/plugin_fleet_view.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "broker_plugin/principal.h"

namespace fleetmcp::http {
namespace {

NodeState state_of(plugin::NodeState s) {
  switch (s) {
    case plugin::NodeState::kOnline: return NodeState::kOnline;
    case plugin::NodeState::kOffline: return NodeState::kOffline;
    case plugin::NodeState::kExpired: return NodeState::kExpired;
    case plugin::NodeState::kRevoked: return NodeState::kRevoked;
  }
  return NodeState::kOffline;
}

// What a snapshot would show, hashed straight from the registry without building it: a rebuild
// (allocating every tool) happens only when this moves. The etag stands for the capabilities.
uint64_t fingerprint(const plugin::NodeRegistry& registry, int64_t now_ms) {
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  registry.for_each([&](const plugin::NodeRecord& r) {
    // for_each visits in hash-map order: combine per node commutatively.
    uint64_t node = std::hash<std::string>{}(r.node_id) ^ (std::hash<std::string>{}(r.tenant) << 1);
    node ^= static_cast<uint64_t>(r.state()) * 0x9e3779b97f4a7c15ull;
    if (r.manifest) node ^= std::hash<std::string>{}(r.manifest->etag) << 2;
    node ^= (r.manifest_fresh(now_ms) && !r.revoked) ? 0x5bd1e995ull : 0;
    h += node * 0x2545f4914f6cdd1dull;
  });
  mix(registry.size());
  return h;
}

class PluginWatch final : public TelemetryWatch {
 public:
  explicit PluginWatch(std::function<void()> remove) : remove_(std::move(remove)) {}
  ~PluginWatch() override { remove_(); }

 private:
  std::function<void()> remove_;
};

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

PluginFleetView::PluginFleetView(plugin::FleetPlugin& core, std::shared_ptr<const SchemaRegistry> schemas)
    : core_(core), schemas_(std::move(schemas)), snapshot_(std::make_shared<FleetSnapshot>(0, std::vector<FleetNode>{})) {
  if (!core_.options().revocation_file.empty()) {
    revoked_ = std::make_shared<const RevocationList>(
        RevocationList::load(core_.options().revocation_file, /*missing_is_empty=*/false));
  }
}

std::vector<FleetNode> PluginFleetView::build(int64_t now_ms) const {
  std::vector<FleetNode> nodes;
  core_.registry().for_each([&](const plugin::NodeRecord& record) {
    if (record.tenant.empty()) return;
    FleetNode n;
    n.node_id = record.node_id;
    n.tenant = record.tenant;
    n.state = state_of(record.state());
    if (record.manifest) {
      n.manifest_etag = record.manifest->etag;
      n.manifest_expires_at_ms = record.manifest->expires_at_ms;
    }
    if (record.manifest_fresh(now_ms) && !record.revoked) {
      for (const Capability& cap : record.manifest->capabilities) {
        const KindSpec* kind = schemas_->kinds().by_kind(cap.kind);
        if (kind == nullptr) continue;
        for (const std::string& verb : cap.verbs) {
          const VerbSpec* spec = kind->verb(verb);
          const auto name = make_tool_name(kind->kind_short, record.node_id, cap.cap_id, verb);
          if (spec != nullptr && name) n.tools.push_back(FleetTool{*name, cap.kind, *spec, cap.safety_class, cap.constraints});
        }
      }
    }
    nodes.push_back(std::move(n));
  });
  std::sort(nodes.begin(), nodes.end(), [](const FleetNode& a, const FleetNode& b) { return a.node_id < b.node_id; });
  return nodes;
}

void PluginFleetView::on_tick(int64_t now_ms, bool force) {
  const int64_t interval = std::max(kRebuildIntervalMs, kRebuildCostFactor * last_build_cost_ms_);
  if (!force && now_ms - last_build_ms_ < interval) return;
  last_build_ms_ = now_ms;
  const uint64_t print = fingerprint(core_.registry(), now_ms);
  if (!force && print == last_fingerprint_ && generation_ > 0) return;
  last_fingerprint_ = print;
  const auto started = std::chrono::steady_clock::now();
  std::vector<FleetNode> nodes = build(now_ms);
  auto snapshot = std::make_shared<const FleetSnapshot>(generation_ + 1, std::move(nodes));
  last_build_cost_ms_ =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  std::function<void()> listener;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_;
    snapshot_ = std::move(snapshot);
    listener = listener_;
  }
  if (listener) listener();
}

std::vector<std::shared_ptr<TelemetryHandler>> PluginFleetView::handlers_of(std::string_view node_id) const {
  std::vector<std::shared_ptr<TelemetryHandler>> out;
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto it = watchers_.find(node_id); it != watchers_.end()) {
    for (const auto& w : it->second) out.push_back(w.handler);
  }
  return out;
}

void PluginFleetView::on_telemetry(std::string_view node_id, std::string_view payload) {
  for (const auto& h : handlers_of(node_id)) {
    if (h->on_sample) h->on_sample(payload);
  }
}

void PluginFleetView::on_node_offline(std::string_view node_id) {
  for (const auto& h : handlers_of(node_id)) {
    if (h->on_offline) h->on_offline();
  }
}

void PluginFleetView::set_revocations(std::shared_ptr<const RevocationList> revoked) {
  std::lock_guard<std::mutex> lock(mutex_);
  revoked_ = std::move(revoked);
}

std::shared_ptr<const FleetSnapshot> PluginFleetView::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return snapshot_;
}

void PluginFleetView::set_change_listener(std::function<void()> on_change) {
  std::lock_guard<std::mutex> lock(mutex_);
  listener_ = std::move(on_change);
}

void PluginFleetView::call(CallSpec spec, CallDone done) {
  plugin::CallRequest request;
  request.tool = std::move(spec.tool);
  request.arguments_json = std::move(spec.arguments_json);
  request.caller = std::move(spec.caller);
  request.tenant = std::move(spec.tenant);
  // The front has checked the caller's scopes against the tool (docs/protocol.md §7); the core's own check
  // must not refuse what the front allowed. The deadline is the core's (the same rule, §4).
  request.scopes = plugin::kScopeBitCallReadOnly | plugin::kScopeBitCallReversible | plugin::kScopeBitCallPhysical;
  request.audited_by_caller = true;  // the front's CallAudit writes the line, naming the endpoint
  request.arguments_validated = true;  // by the front's gate (CallSpec): not again on the broker thread
  request.on_done = [done = std::move(done)](const plugin::CallResult& result) {
    CallOutcome outcome;
    outcome.ok = result.ok;
    outcome.result_json = result.result_json;
    outcome.error = result.error;
    done(std::move(outcome));
  };
  core_.submit_call(std::move(request));
}

std::unique_ptr<TelemetryWatch> PluginFleetView::watch_telemetry(std::string_view node_id, TelemetryHandler handler) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t id = next_watch_++;
  const std::string node(node_id);
  watchers_[node].push_back(Watcher{id, std::make_shared<TelemetryHandler>(std::move(handler))});
  return std::make_unique<PluginWatch>([this, alive = std::weak_ptr<bool>(alive_), node, id] {
    if (!alive.lock()) return;
    std::lock_guard<std::mutex> guard(mutex_);
    auto& list = watchers_[node];
    std::erase_if(list, [id](const Watcher& w) { return w.id == id; });
    if (list.empty()) watchers_.erase(node);
  });
}

FleetStats PluginFleetView::stats() const {
  const plugin::PluginCounters& c = core_.counters();
  FleetStats s;
  s.announces_verified = c.announces_accepted.load(std::memory_order_relaxed);
  s.announces_refused = c.announces_refused.load(std::memory_order_relaxed);
  const uint64_t submitted = c.calls_submitted.load(std::memory_order_relaxed);
  const uint64_t finished = c.calls_ok.load(std::memory_order_relaxed) + c.calls_failed.load(std::memory_order_relaxed) +
                            c.calls_timed_out.load(std::memory_order_relaxed);
  // In flight = submitted − finished; the core's pending count is broker-thread state.
  s.calls_pending = submitted > finished ? submitted - finished : 0;
  return s;
}

bool PluginFleetView::token_revoked(std::string_view jti) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return revoked_ && revoked_->contains(lowercase(jti));
}

}  // namespace fleetmcp::http
