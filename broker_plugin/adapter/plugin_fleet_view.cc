#include "broker_plugin/adapter/plugin_fleet_view.h"

#include "broker_plugin/access/principal.h"
#include "common/base/text.h"

namespace fleetmcp::http {
namespace {

// The tools are a function of the etag and of whether the manifest is fresh, which the tool
// count tells apart (a fresh manifest shows its tools, a stale one none).
bool shows_the_same(const FleetNode& a, const FleetNode& b) {
  return a.node_id == b.node_id && a.tenant == b.tenant && a.state == b.state && a.manifest_etag == b.manifest_etag &&
         a.manifest_expires_at_ms == b.manifest_expires_at_ms && a.state_since_ms == b.state_since_ms &&
         a.tools.size() == b.tools.size();
}

}  // namespace

PluginFleetView::PluginFleetView(plugin::FleetPlugin& core, std::shared_ptr<const SchemaRegistry> schemas)
    : core_(core), schemas_(std::move(schemas)), revoked_(core_.parts().revoked) {}

std::optional<FleetNode> PluginFleetView::node_of(const plugin::NodeRecord& record, int64_t now_ms) const {
  if (record.tenant.empty()) return std::nullopt;
  FleetNode n;
  n.node_id = record.node_id;
  n.tenant = record.tenant;
  n.state = record.state();
  n.state_since_ms = record.since_ms;
  if (record.manifest) {
    n.manifest_etag = record.manifest->etag;
    n.manifest_expires_at_ms = record.manifest->expires_at_ms;
    n.hostname = record.manifest->hostname;
    n.labels = record.manifest->labels;
  }
  if (record.manifest_fresh(now_ms) && !record.revoked) {
    for (const Capability& cap : record.manifest->capabilities) {
      const KindSpec* kind = schemas_->kinds().by_kind(cap.kind);
      if (kind == nullptr) continue;
      if (!cap.label.empty()) n.cap_labels.emplace(cap.cap_id, cap.label);
      for (const std::string& verb : cap.verbs) {
        const VerbSpec* spec = kind->verb(verb);
        const auto name = make_tool_name(kind->kind_short, record.node_id, cap.cap_id, verb);
        if (spec != nullptr && name) n.tools.push_back(FleetTool{*name, cap.kind, *spec, cap.safety_class, cap.constraints});
      }
    }
  }
  return n;
}

std::shared_ptr<const FleetSnapshot> PluginFleetView::full_build(int64_t now_ms) const {
  std::vector<FleetNode> nodes;
  core_.parts().registry.for_each([&](const plugin::NodeRecord& record) {
    if (auto n = node_of(record, now_ms)) nodes.push_back(std::move(*n));
  });
  return std::make_shared<const FleetSnapshot>(snapshot()->generation() + 1, std::move(nodes));
}

std::shared_ptr<const FleetSnapshot> PluginFleetView::changed_build(int64_t now_ms) {
  std::vector<FleetNode> changed;
  std::vector<std::string> removed;
  const std::shared_ptr<const FleetSnapshot> last = snapshot();
  for (const std::string& node_id : changed_) {
    const plugin::NodeRecord* record = core_.parts().registry.find(node_id);
    auto n = record != nullptr ? node_of(*record, now_ms) : std::nullopt;
    const FleetNode* shown = last->node(n ? n->tenant : std::string(), node_id);
    if (n && shown != nullptr && shows_the_same(*n, *shown)) continue;  // e.g. the same manifest again
    if (n) changed.push_back(std::move(*n));
    else removed.push_back(node_id);
  }
  changed_.clear();
  if (changed.empty() && removed.empty()) return nullptr;
  return last->next(last->generation() + 1, std::move(changed), removed);
}

void PluginFleetView::on_tick(int64_t now_ms, bool force) {
  if (force) {
    changed_.clear();
    last_publish_ms_ = now_ms;
    publish(full_build(now_ms));
    return;
  }
  if (changed_.empty() || now_ms - last_publish_ms_ < kPublishIntervalMs) return;
  last_publish_ms_ = now_ms;
  if (auto next = changed_build(now_ms)) publish(std::move(next));
}

void PluginFleetView::on_telemetry(std::string_view node_id, std::string_view payload) {
  for (const auto& h : watchers_of(node_id)) {
    if (h->on_sample) h->on_sample(payload);
  }
}

void PluginFleetView::on_node_offline(std::string_view node_id) {
  for (const auto& h : watchers_of(node_id)) {
    if (h->on_offline) h->on_offline();
  }
}

void PluginFleetView::set_revocations(std::shared_ptr<const RevocationList> revoked) {
  std::lock_guard<std::mutex> lock(mutex_);
  revoked_ = std::move(revoked);
}

void PluginFleetView::call(CallRequest request, CallDone done) {
  // The same request and result types on both sides (tool_call.h): the front's CallGate has
  // resolved the tool and checked it (CallOrigin::kFront), so the core trusts the request as it is
  // and the result comes back untouched. The deadline is the core's (CallDispatch::expire).
  core_.submit_call(std::move(request), std::move(done));
}

FleetStats PluginFleetView::stats() const {
  const plugin::PluginCounters& c = core_.parts().counters;
  FleetStats s;
  s.announces_verified = c.announces_accepted.load(std::memory_order_relaxed);
  s.announces_refused = c.announces_refused.load(std::memory_order_relaxed);
  const uint64_t submitted = c.calls_submitted.load(std::memory_order_relaxed);
  const uint64_t finished = c.calls_ok.load(std::memory_order_relaxed) + c.calls_failed.load(std::memory_order_relaxed) +
                            c.calls_timed_out.load(std::memory_order_relaxed);
  // In flight = submitted − finished; the core's pending count is broker-thread state.
  s.calls_pending = submitted > finished ? submitted - finished : 0;
  s.mqtt_refusals = c.mqtt_refusals();
  s.audit_lines_throttled = c.audit_lines_throttled.load(std::memory_order_relaxed);
  return s;
}

bool PluginFleetView::token_revoked(std::string_view jti) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!revoked_) return false;
  // The list holds lowercase ids. A jti fleetctl issued already is one (a ULID): no copy for it.
  if (has_ascii_upper(jti)) return revoked_->contains(lowercase(jti));
  return revoked_->contains(jti);
}

}  // namespace fleetmcp::http
