#include "broker_plugin/http/streams/telemetry_fanout.h"

#include <algorithm>
#include <limits>
#include <vector>


namespace fleetmcp::http {
namespace {

constexpr std::string_view kSampleSchema = "mcp://schemas/system.metrics.sample@1.0.0";
constexpr std::string_view kGatewayCaller = "fleetmcp-http";  // who the audit log says asked for the lease

}  // namespace

struct TelemetryFanout::State {
  FleetView& fleet;
  const SchemaRegistry& schemas;
  std::shared_ptr<Scheduler> scheduler;
  std::chrono::milliseconds renew_every;
  Clock clock;
  std::mutex mutex;  // before any Feed::mutex
  std::map<std::string, std::shared_ptr<Feed>> feeds;
};

struct TelemetryFanout::Feed : std::enable_shared_from_this<Feed> {
  struct Sub {
    uint64_t id = 0;
    int64_t interval_ms = 0;
    int64_t last_ms = 0;
    bool delivered = false;
    std::weak_ptr<TelemetrySubscriber> who;
  };

  std::string key, node_id, tenant, cap_id, verb, tool;  // the subscribe tool that leases the telemetry
  std::weak_ptr<State> state;

  std::mutex mutex;
  std::vector<Sub> subs;
  uint64_t next_id = 1;
  int64_t requested_ms = 0, leased_ms = 0, lease_expires_at_ms = 0;
  bool lease_in_flight = false, ended = false;
  std::unique_ptr<TelemetryWatch> watch;
  std::unique_ptr<Timer> renew;  // touched on the fan-out's scheduler only

  int64_t wanted_ms() const {
    int64_t want = std::numeric_limits<int64_t>::max();
    for (const Sub& s : subs) want = std::min(want, s.interval_ms);
    return want;
  }
};

namespace {

using Feed = TelemetryFanout::Feed;
using State = TelemetryFanout::State;

void refresh_lease(const std::shared_ptr<Feed>& feed, bool renewal);

// Removes a feed nobody listens to (or that ended) and drops its watch and timer. Scheduler only.
void retire(const std::shared_ptr<Feed>& feed) {
  const auto state = feed->state.lock();
  if (!state) return;
  std::unique_ptr<TelemetryWatch> watch;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    std::lock_guard<std::mutex> feed_lock(feed->mutex);
    if (!feed->ended && !feed->subs.empty()) return;
    const auto it = state->feeds.find(feed->key);
    if (it != state->feeds.end() && it->second == feed) state->feeds.erase(it);
    watch = std::move(feed->watch);
  }
  feed->renew.reset();
  watch.reset();  // outside the locks: the FleetView may take its own
}

void end_feed(const std::shared_ptr<Feed>& feed, const ErrorEnvelope& why) {
  std::vector<std::shared_ptr<TelemetrySubscriber>> told;
  {
    std::lock_guard<std::mutex> lock(feed->mutex);
    if (feed->ended) return;
    feed->ended = true;
    for (const auto& sub : feed->subs) {
      if (auto who = sub.who.lock()) told.push_back(std::move(who));
    }
    feed->subs.clear();
  }
  for (const auto& who : told) who->on_feed_end(why);
  if (const auto state = feed->state.lock()) state->scheduler->post([feed] { retire(feed); });
}

void deliver(const std::shared_ptr<Feed>& feed, const State& state, std::string_view sample_json) {
  auto parsed = json::parse_strict(sample_json);
  if (!parsed) return;  // not JSON: nothing a subscriber could use
  auto sample = std::make_shared<json::Document>(std::move(*parsed));
  if (state.schemas.validate(kSampleSchema, *sample)) return;
  const int64_t now = state.clock();
  std::vector<std::shared_ptr<TelemetrySubscriber>> due;
  {
    std::lock_guard<std::mutex> lock(feed->mutex);
    for (auto& sub : feed->subs) {
      // Take the sample nearest the subscriber's cadence: the next one is a lease interval away.
      const int64_t step = feed->leased_ms > 0 ? std::min(feed->leased_ms, sub.interval_ms) : sub.interval_ms;
      if (sub.delivered && now - sub.last_ms < sub.interval_ms - step / 2) continue;
      sub.delivered = true;
      sub.last_ms = now;
      if (auto who = sub.who.lock()) due.push_back(std::move(who));
    }
  }
  for (const auto& who : due) who->on_sample(sample);
}

// A renewal nobody answered in time is not a refusal: the lease granted before still runs (the
// renewal comes well before it expires), so the feed stays and the next renewal asks again. Only
// a device's refusal, or a first lease that never came, ends it (RFC-0009 4503, D19).
bool retry_later(const CallResult& outcome, bool renewal) {
  const ErrorCode code = outcome.error().code;
  return renewal && (code == ErrorCode::kDeadlineExceeded || code == ErrorCode::kRateLimited);
}

void arm_renewal(const std::shared_ptr<Feed>& feed, const State& state) {
  std::weak_ptr<Feed> weak = feed;
  feed->renew = state.scheduler->after(state.renew_every, [weak] {
    if (auto f = weak.lock()) refresh_lease(f, true);
  });
}

void lease_done(const std::shared_ptr<Feed>& feed, const CallResult& outcome, bool renewal) {
  const auto state = feed->state.lock();
  if (!state) return;
  if (!outcome) {
    {
      std::lock_guard<std::mutex> lock(feed->mutex);
      feed->lease_in_flight = false;
    }
    if (retry_later(outcome, renewal)) {
      arm_renewal(feed, *state);
    } else {
      end_feed(feed, outcome.error());
    }
    return;
  }
  int64_t want = 0;
  bool shorter_wanted = false;
  {
    std::lock_guard<std::mutex> lock(feed->mutex);
    feed->lease_in_flight = false;
    feed->leased_ms = feed->requested_ms;
    // The core checked the result against the output schema; if it is not JSON, keep what was asked for.
    if (const auto result = json::parse_strict(*outcome, ErrorCode::kInternal)) {
      feed->lease_expires_at_ms = json::get_int64(*result, "lease_expires_at_ms").value_or(0);
      feed->leased_ms = json::get_int64(*result, "interval_ms").value_or(feed->requested_ms);
    }
    want = feed->wanted_ms();
    shorter_wanted = !feed->subs.empty() && want < feed->leased_ms;
  }
  arm_renewal(feed, *state);
  if (shorter_wanted) refresh_lease(feed, false);
}

// Asks the device for samples at the shortest wanted interval. Scheduler only.
void refresh_lease(const std::shared_ptr<Feed>& feed, bool renewal) {
  const auto state = feed->state.lock();
  if (!state) return;
  CallRequest request;
  {
    std::lock_guard<std::mutex> lock(feed->mutex);
    if (feed->ended || feed->subs.empty() || feed->lease_in_flight) return;
    const int64_t want = feed->wanted_ms();
    if (!renewal && feed->leased_ms > 0 && want >= feed->leased_ms) return;  // the current lease serves
    feed->lease_in_flight = true;
    feed->requested_ms = want;
    request.caller = std::string(kGatewayCaller);
    request.tenant = feed->tenant;
    request.node_id = feed->node_id;
    request.cap_id = feed->cap_id;
    request.verb = feed->verb;
    request.tool = feed->tool;
    request.arguments_json = "{\"interval_ms\":" + std::to_string(want) + "}";
  }
  std::weak_ptr<Feed> weak = feed;
  std::weak_ptr<Scheduler> scheduler = state->scheduler;
  state->fleet.call(std::move(request), [weak, scheduler, renewal](CallResult outcome) {
    if (const auto s = scheduler.lock()) {
      s->post([weak, outcome = std::move(outcome), renewal] {
        if (auto f = weak.lock()) lease_done(f, outcome, renewal);
      });
    }
  });
}

class Subscription final : public TelemetrySubscription {
 public:
  Subscription(std::shared_ptr<Feed> feed, uint64_t id) : feed_(std::move(feed)), id_(id) {}

  ~Subscription() override {
    bool empty = false;
    {
      std::lock_guard<std::mutex> lock(feed_->mutex);
      std::erase_if(feed_->subs, [&](const Feed::Sub& s) { return s.id == id_; });
      empty = feed_->subs.empty();
    }
    if (!empty) return;
    if (const auto state = feed_->state.lock()) state->scheduler->post([feed = feed_] { retire(feed); });
  }

  int64_t lease_expires_at_ms() const override {
    std::lock_guard<std::mutex> lock(feed_->mutex);
    return feed_->lease_expires_at_ms;
  }
  int64_t leased_interval_ms() const override {
    std::lock_guard<std::mutex> lock(feed_->mutex);
    return feed_->leased_ms;
  }

 private:
  std::shared_ptr<Feed> feed_;
  uint64_t id_;
};

std::unique_ptr<TelemetryWatch> watch_node(const std::shared_ptr<State>& state, const std::shared_ptr<Feed>& feed) {
  std::weak_ptr<Feed> weak_feed = feed;
  std::weak_ptr<State> weak_state = state;
  TelemetryHandler handler;
  handler.on_sample = [weak_feed, weak_state](std::string_view sample) {
    const auto f = weak_feed.lock();
    const auto s = weak_state.lock();
    if (f && s) deliver(f, *s, sample);
  };
  handler.on_offline = [weak_feed] {
    if (auto f = weak_feed.lock()) {
      end_feed(f, ErrorEnvelope(ErrorCode::kNodeOffline, "node " + f->node_id + " went offline",
                                "subscribe again when the node is online ($devices/<node_id>/status)"));
    }
  };
  return state->fleet.watch_telemetry(feed->node_id, std::move(handler));
}

}  // namespace

TelemetryFanout::TelemetryFanout(FleetView& fleet, const SchemaRegistry& schemas, std::shared_ptr<Scheduler> scheduler,
                                 std::chrono::milliseconds renew_every, Clock clock)
    : state_(new State{fleet, schemas, std::move(scheduler), renew_every, std::move(clock), {}, {}}) {}

TelemetryFanout::~TelemetryFanout() {
  std::map<std::string, std::shared_ptr<Feed>> feeds;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    feeds.swap(state_->feeds);
  }
  for (auto& [key, feed] : feeds) {
    std::unique_ptr<TelemetryWatch> watch;
    {
      std::lock_guard<std::mutex> lock(feed->mutex);
      watch = std::move(feed->watch);
    }
    feed->renew.reset();
  }
}

std::unique_ptr<TelemetrySubscription> TelemetryFanout::subscribe(const FleetTool& tool, const std::string& tenant,
                                                                  int64_t interval_ms,
                                                                  std::weak_ptr<TelemetrySubscriber> who) {
  const std::string key = tool.name.node_id + "/" + tool.name.cap_id;
  std::shared_ptr<Feed> feed;
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    auto& slot = state_->feeds[key];
    bool fresh = !slot;
    if (slot) {
      std::lock_guard<std::mutex> feed_lock(slot->mutex);
      fresh = slot->ended;
    }
    if (fresh) {
      slot = std::make_shared<Feed>();
      slot->key = key;
      slot->node_id = tool.name.node_id;
      slot->tenant = tenant;
      slot->cap_id = tool.name.cap_id;
      slot->verb = tool.name.verb;
      slot->tool = tool.canonical_name;
      slot->state = state_;
      slot->watch = watch_node(state_, slot);
    }
    feed = slot;
    std::lock_guard<std::mutex> feed_lock(feed->mutex);
    id = feed->next_id++;
    feed->subs.push_back(Feed::Sub{id, interval_ms, 0, false, std::move(who)});
  }
  state_->scheduler->post([feed] { refresh_lease(feed, false); });
  return std::make_unique<Subscription>(feed, id);
}

size_t TelemetryFanout::feed_count() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->feeds.size();
}

size_t TelemetryFanout::subscriber_count() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  size_t n = 0;
  for (const auto& [key, feed] : state_->feeds) {
    std::lock_guard<std::mutex> feed_lock(feed->mutex);
    n += feed->subs.size();
  }
  return n;
}

}  // namespace fleetmcp::http
