#include "tests/support/memory_fleet.h"

#include <algorithm>
#include <utility>

#include "common/protocol/deadlines.h"

namespace fleetmcp::http::testing {

struct MemoryFleet::Node {
  std::string tenant, node_id;
  std::vector<MemoryCapability> caps;
  std::string hostname;
  std::vector<std::string> labels;
  NodeState state = NodeState::kOnline;
  bool silent = false;
  bool relay_on = false;
  bool pin_output = false, pin_high = false;  // gpio.pin: an input until invoke makes it an output
  int64_t lease_interval_ms = 0, lease_expires_at_ms = 0;
  uint64_t telemetry_generation = 0;  // a new lease or going offline stops the old cadence
  uint64_t samples = 0;
  // Silent calls, failed when the node goes offline or at their gateway deadline, whichever comes
  // first (the one that takes the CallDone).
  struct Unanswered {
    std::shared_ptr<CallDone> done;
    std::unique_ptr<Timer> deadline;
  };
  std::vector<Unanswered> unanswered;
  std::unique_ptr<Timer> telemetry;
};

namespace {

json::Document parse_args(const std::string& text) {
  try {
    return json::parse_strict(text).value();
  } catch (const Error&) {
    json::Document d(rapidjson::kObjectType);
    return d;
  }
}

CallResult ok(const json::Value& result) { return json::to_string(result); }

CallResult failed(ErrorCode code, std::string_view message) { return ErrorEnvelope(code, message, "see the test"); }

// A MetricsSample (system.metrics.sample@1.0.0) that changes a little with every reading.
json::Document sample(const std::string& node_id, int64_t now_ms, uint64_t n) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("ts_ms", now_ms, a);
  d.AddMember("node_id", json::string_value(node_id, a), a);
  d.AddMember("uptime_s", static_cast<int64_t>(1000 + n), a);
  json::Value cpu(rapidjson::kObjectType), per(rapidjson::kArrayType);
  const double usage = static_cast<double>(10 + n % 50);
  cpu.AddMember("cores", 4, a);
  cpu.AddMember("usage_pct", usage, a);
  for (int i = 0; i < 4; ++i) per.PushBack(usage, a);
  cpu.AddMember("per_core_pct", per, a);
  d.AddMember("cpu", cpu, a);
  json::Value mem(rapidjson::kObjectType);
  mem.AddMember("total_bytes", int64_t{8589934592}, a);
  mem.AddMember("available_bytes", int64_t{6000000000}, a);
  mem.AddMember("used_bytes", int64_t{2589934592}, a);
  d.AddMember("mem", mem, a);
  json::Value load(rapidjson::kObjectType);
  load.AddMember("one", 0.42, a);
  load.AddMember("five", 0.39, a);
  load.AddMember("fifteen", 0.35, a);
  d.AddMember("load", load, a);
  json::Value disks(rapidjson::kArrayType), disk(rapidjson::kObjectType);
  disk.AddMember("mount", "/", a);
  disk.AddMember("fs_type", "ext4", a);
  disk.AddMember("total_bytes", int64_t{1000000000}, a);
  disk.AddMember("available_bytes", int64_t{688000000}, a);
  disks.PushBack(disk, a);
  d.AddMember("disk", disks, a);
  return d;
}

MemoryCapability capability_from(const json::Value& c) {
  MemoryCapability cap;
  cap.cap_id = std::string(json::get_string(c, "cap_id").value_or(""));
  cap.kind = std::string(json::get_string(c, "kind").value_or(""));
  if (const json::Value* verbs = json::find(c, "verbs"); verbs && verbs->IsArray()) {
    for (const auto& v : verbs->GetArray()) {
      if (v.IsString()) cap.verbs.emplace_back(v.GetString());
    }
  }
  cap.safety_class = safety_class_from_name(json::get_string(c, "safety_class").value_or("read_only"))
                         .value_or(SafetyClass::kReadOnly);
  if (const json::Value* k = json::find(c, "constraints"); k && k->IsObject()) {
    cap.constraints.rate_limit_rps = json::get_number(*k, "rate_limit_rps").value_or(10);
    cap.constraints.max_concurrency = static_cast<int>(json::get_int64(*k, "max_concurrency").value_or(4));
    cap.constraints.deadline_ms_default = static_cast<int>(json::get_int64(*k, "deadline_ms_default").value_or(2000));
  }
  if (cap.cap_id.empty() || cap.kind.empty() || cap.verbs.empty()) {
    throw Error(ErrorCode::kBadRequest, "fleet file: a capability needs cap_id, kind and verbs", "fix the fleet file");
  }
  return cap;
}

}  // namespace

MemoryFleet::MemoryFleet(std::shared_ptr<const SchemaRegistry> schemas, std::shared_ptr<Scheduler> device,
                         std::function<int64_t()> wall_ms)
    : schemas_(std::move(schemas)), device_(std::move(device)), wall_ms_(std::move(wall_ms)) {
  std::lock_guard<std::mutex> lock(mutex_);
  publish_locked();
}

MemoryFleet::~MemoryFleet() = default;

void MemoryFleet::publish_locked() {
  std::vector<FleetNode> nodes;
  for (const auto& [id, node] : nodes_) {
    FleetNode n;
    n.node_id = node->node_id;
    n.tenant = node->tenant;
    n.state = node->state;
    n.manifest_etag = "memory-" + std::to_string(generation_);
    n.manifest_expires_at_ms = wall_ms_() + 3600000;
    n.hostname = node->hostname;
    n.labels = node->labels;
    if (node->state == NodeState::kOnline || node->state == NodeState::kOffline) {
      for (const MemoryCapability& cap : node->caps) {
        const KindSpec* kind = schemas_->kinds().by_kind(cap.kind);
        if (kind == nullptr) continue;
        if (!cap.label.empty()) n.cap_labels.emplace(cap.cap_id, cap.label);
        for (const std::string& verb : cap.verbs) {
          const VerbSpec* spec = kind->verb(verb);
          const auto name = make_tool_name(kind->kind_short, node->node_id, cap.cap_id, verb);
          if (spec == nullptr || !name) continue;
          n.tools.push_back(FleetTool{*name, cap.kind, *spec, cap.safety_class, cap.constraints});
        }
      }
    }
    nodes.push_back(std::move(n));
  }
  set_snapshot(std::make_shared<FleetSnapshot>(++generation_, std::move(nodes)));
}

void MemoryFleet::changed() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    publish_locked();
  }
  notify_listener();
}

void MemoryFleet::add_node(const std::string& tenant, const std::string& node_id, std::vector<MemoryCapability> caps,
                           bool online) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto node = std::make_unique<Node>();
    node->tenant = tenant;
    node->node_id = node_id;
    node->caps = std::move(caps);
    node->state = online ? NodeState::kOnline : NodeState::kOffline;
    nodes_[node_id] = std::move(node);
  }
  changed();
}

void MemoryFleet::remove_node(const std::string& node_id) {
  set_online(node_id, false);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    nodes_.erase(node_id);
  }
  changed();
}

void MemoryFleet::describe(const std::string& node_id, std::string hostname, std::vector<std::string> labels) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = nodes_.find(node_id);
    if (it == nodes_.end()) return;
    it->second->hostname = std::move(hostname);
    it->second->labels = std::move(labels);
  }
  changed();
}

void MemoryFleet::set_online(const std::string& node_id, bool online) {
  std::vector<std::shared_ptr<CallDone>> failed_calls;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = nodes_.find(node_id);
    if (it == nodes_.end()) return;
    Node& n = *it->second;
    if (n.state == NodeState::kExpired || n.state == NodeState::kRevoked) return;
    n.state = online ? NodeState::kOnline : NodeState::kOffline;
    if (!online) {
      for (Node::Unanswered& call : n.unanswered) failed_calls.push_back(std::move(call.done));
      n.unanswered.clear();
      ++n.telemetry_generation;
      n.lease_interval_ms = 0;
    }
  }
  if (!online) {
    // As the core does when a session ends: pending calls fail at once, telemetry watchers hear it.
    device_->post([failed_calls = std::move(failed_calls)] {
      for (const auto& done : failed_calls) {
        if (*done) std::exchange(*done, nullptr)(failed(ErrorCode::kNodeOffline, "node went offline before answering"));
      }
    });
    notify_offline(node_id);
  }
  changed();
}

void MemoryFleet::expire(const std::string& node_id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = nodes_.find(node_id);
    if (it == nodes_.end()) return;
    it->second->state = NodeState::kExpired;
    ++it->second->telemetry_generation;
  }
  notify_offline(node_id);
  changed();
}

void MemoryFleet::set_silent(const std::string& node_id, bool silent) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto it = nodes_.find(node_id); it != nodes_.end()) it->second->silent = silent;
}

void MemoryFleet::revoke_token(const std::string& jti) {
  std::lock_guard<std::mutex> lock(mutex_);
  revoked_.insert(jti);
}

void MemoryFleet::load_json(std::string_view text) {
  const json::Document doc = json::parse_strict(text).value();
  const json::Value* nodes = doc.IsObject() ? json::find(doc, "nodes") : nullptr;
  if (nodes == nullptr || !nodes->IsArray()) {
    throw Error(ErrorCode::kBadRequest, "fleet file: expected {\"nodes\": [...]}", "fix the fleet file");
  }
  for (const auto& n : nodes->GetArray()) {
    std::vector<MemoryCapability> caps;
    if (const json::Value* c = json::find(n, "capabilities"); c && c->IsArray()) {
      for (const auto& cap : c->GetArray()) caps.push_back(capability_from(cap));
    }
    add_node(std::string(json::get_string(n, "tenant").value_or("")), std::string(json::get_string(n, "node_id").value_or("")),
             std::move(caps), json::get_bool(n, "online").value_or(true));
  }
}

int64_t MemoryFleet::leased_interval_ms(const std::string& node_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = nodes_.find(node_id);
  return it == nodes_.end() ? 0 : it->second->lease_interval_ms;
}

std::shared_ptr<const FleetSnapshot> MemoryFleet::snapshot() const {
  ++snapshots_taken_;
  return FleetViewBase::snapshot();
}

void MemoryFleet::call(CallRequest request, CallDone done) {
  ++calls_received_;
  device_->post([this, alive = std::weak_ptr<bool>(alive_), request = std::move(request), done = std::move(done)]() mutable {
    if (!alive.lock()) return;
    std::optional<CallResult> outcome;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = nodes_.find(request.node_id);
      if (it == nodes_.end() || it->second->tenant != request.tenant) {
        outcome = failed(ErrorCode::kManifestNotFound, "no such tool for this tenant");
      } else if (it->second->state != NodeState::kOnline) {
        outcome = failed(ErrorCode::kNodeOffline, "node has no live session");
      } else if (it->second->silent) {
        keep_unanswered(*it->second, request.cap_id, std::move(done));
        return;
      } else {
        outcome = run_tool(*it->second, request, parse_args(request.arguments_json));
      }
    }
    done(std::move(*outcome));
  });
}

// Called with mutex_ held. As the core does (FleetView::call): a call its node does not answer
// fails at the gateway deadline of its capability (docs/protocol.md §4).
void MemoryFleet::keep_unanswered(Node& node, std::string_view cap_id, CallDone done) {
  std::erase_if(node.unanswered, [](const Node::Unanswered& u) { return !*u.done; });  // answered at their deadline
  const auto cap = std::find_if(node.caps.begin(), node.caps.end(), [&](const auto& c) { return c.cap_id == cap_id; });
  const int deadline_ms_default = cap != node.caps.end() ? cap->constraints.deadline_ms_default : 0;
  auto pending = std::make_shared<CallDone>(std::move(done));
  auto deadline = device_->after(std::chrono::milliseconds(gateway_deadline_ms(deadline_ms_default)), [pending] {
    if (*pending) std::exchange(*pending, nullptr)(failed(ErrorCode::kDeadlineExceeded, "the node did not answer in time"));
  });
  node.unanswered.push_back(Node::Unanswered{std::move(pending), std::move(deadline)});
}

CallResult MemoryFleet::run_tool(Node& node, const CallRequest& request, const json::Value& args) {
  const std::string_view cap_id = request.cap_id, verb = request.verb;
  const auto cap = std::find_if(node.caps.begin(), node.caps.end(), [&](const auto& c) { return c.cap_id == cap_id; });
  if (cap == node.caps.end()) return failed(ErrorCode::kManifestNotFound, "no such capability");
  // As the core (call_dispatch.cc), which puts the request's tool name into the cmd as it is.
  const KindSpec* kind = schemas_->kinds().by_kind(cap->kind);
  if (kind == nullptr || request.tool != ToolName{kind->kind_short, node.node_id, cap->cap_id, request.verb}.dotted()) {
    return failed(ErrorCode::kManifestNotFound, "the request does not name its tool canonically");
  }
  json::Document r(rapidjson::kObjectType);
  auto& a = r.GetAllocator();
  const int64_t now = wall_ms_();
  if (cap->kind == "system.echo") {
    r.AddMember("message", json::string_value(json::get_string(args, "message").value_or(""), a), a);
    r.AddMember("received_at_ms", now, a);
    r.AddMember("node_id", json::string_value(node.node_id, a), a);
    return ok(r);
  }
  if (cap->kind == "system.metrics" && verb == "snapshot") return ok(sample(node.node_id, now, node.samples++));
  if (cap->kind == "system.metrics" && verb == "subscribe") {
    ++lease_calls_;
    node.lease_interval_ms = json::get_int64(args, "interval_ms").value_or(5000);
    node.lease_expires_at_ms = now + 30000;
    start_telemetry(node.node_id);
    r.AddMember("interval_ms", node.lease_interval_ms, a);
    r.AddMember("lease_expires_at_ms", node.lease_expires_at_ms, a);
    return ok(r);
  }
  if (cap->kind == "test.relay") {
    if (verb == "set") node.relay_on = json::get_bool(args, "on").value_or(false);
    r.AddMember("on", node.relay_on, a);
    r.AddMember("node_id", json::string_value(node.node_id, a), a);
    return ok(r);
  }
  if (cap->kind == "gpio.pin") {  // pin 17; like the device, a set of an input is refused
    if (verb == "invoke") node.pin_output = json::get_string(args, "mode") == std::optional<std::string_view>("output");
    if (verb == "set" && !node.pin_output) return failed(ErrorCode::kBadRequest, "failed_precondition: not an output");
    if (verb == "set") node.pin_high = json::get_string(args, "value") == std::optional<std::string_view>("high");
    r.AddMember("pin", 17, a);
    r.AddMember("mode", rapidjson::StringRef(node.pin_output ? "output" : "input"), a);
    r.AddMember("allowed", true, a);
    return ok(r);
  }
  return failed(ErrorCode::kInternal, "the in-memory device has no handler for this kind");
}

// Called with mutex_ held (from run_tool): like the device, a new lease restarts the cadence with
// an immediate sample.
void MemoryFleet::start_telemetry(const std::string& node_id) {
  Node& node = *nodes_.at(node_id);
  const uint64_t generation = ++node.telemetry_generation;
  device_->post([this, alive = std::weak_ptr<bool>(alive_), node_id, generation] {
    if (alive.lock()) emit(node_id, generation);
  });
}

void MemoryFleet::emit(const std::string& node_id, uint64_t generation) {
  std::string text;
  std::vector<std::shared_ptr<TelemetryHandler>> handlers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = nodes_.find(node_id);
    if (it == nodes_.end() || it->second->telemetry_generation != generation || it->second->state != NodeState::kOnline) {
      return;
    }
    Node& node = *it->second;
    const int64_t now = wall_ms_();
    if (now >= node.lease_expires_at_ms) return;  // the lease ran out: no base cadence here
    text = json::to_string(sample(node_id, now, node.samples++));
    handlers = watchers_of(node_id);
    node.telemetry = device_->after(std::chrono::milliseconds(node.lease_interval_ms),
                                    [this, alive = std::weak_ptr<bool>(alive_), node_id, generation] {
                                      if (alive.lock()) emit(node_id, generation);
                                    });
  }
  for (const auto& h : handlers) {
    if (h->on_sample) h->on_sample(text);
  }
}

void MemoryFleet::notify_offline(const std::string& node_id) {
  device_->post([handlers = watchers_of(node_id)] {
    for (const auto& h : handlers) {
      if (h->on_offline) h->on_offline();
    }
  });
}

FleetStats MemoryFleet::stats() const {
  FleetStats s;
  std::lock_guard<std::mutex> lock(mutex_);
  s.announces_verified = nodes_.size();
  return s;
}

bool MemoryFleet::token_revoked(std::string_view jti) const {
  ++revocation_checks_;
  std::lock_guard<std::mutex> lock(mutex_);
  return revoked_.count(jti) != 0;
}

}  // namespace fleetmcp::http::testing
