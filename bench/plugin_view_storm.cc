// What one node's change costs the HTTP front's view of the fleet (PluginFleetView over the real
// plugin core and the unit tests' fake broker: no broker, no network), at 1,000 and at 10,000
// nodes, with the ratio: the view is updated incrementally (FleetSnapshot::next), so the cost per
// change should not grow with the fleet (issue 15). For comparison, the full rebuild, which is what
// every change cost before.
//
// Measured in CPU time of this thread (CLOCK_THREAD_CPUTIME_ID) around the view's tick only: the
// core's own work (verifying an announce, publishing status) is the same with or without the
// view and is not counted. Each tick sees the changes the core named since the last one, as in a
// connect storm: `batch` changes per tick. Last, what the HTTP front does with each new snapshot
// on its background thread: compare the tenant's tools digest (per_node mode: kept by the
// snapshot) or recompute it (by_kind mode: KindTools::digest walks the tenant's tools).
//   plugin_view_storm [changes per figure (default 2000)] [small fleet (1000)] [large fleet (10000; 0: none)]
// Instructions instead of time (load-independent), one fleet size per run: the Ir total of
//   valgrind --tool=callgrind --toggle-collect='*timed_tick*' plugin_view_storm 400 10000 0
// divided by the ticks' changes (400 status changes, 400 announces, 400 in batches of 50).
#include <time.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker_plugin/http/surface/kind_tools.h"
#include "broker_plugin/adapter/plugin_fleet_view.h"
#include "tests/support/plugin_fake_broker.h"

using namespace fleetmcp;
using namespace fleetmcp::plugin;

namespace {

int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string topic(const std::string& node_id, const char* leaf) { return "$devices/" + node_id + "/" + leaf; }

// A fleet of `size` connected nodes with verified manifests, and the view over it.
class Fleet {
 public:
  explicit Fleet(int size) : view_(*f_.plugin, f_.plugin->parts().schemas) {
    for (int i = 0; i < size; ++i) {
      nodes_.push_back(f_.pki.enroll(i % 10 == 0 ? "globex" : "acme"));
      clients_.push_back(&connect(*nodes_.back()));
      announce(i, f_.now);
    }
    f_.plugin->on_tick();
    view_.on_tick(view_ms_, true);
    f_.plugin->set_observer(&view_);  // as plugin_entry.cc does
  }
  ~Fleet() { f_.plugin->set_observer(nullptr); }

  int size() const { return static_cast<int>(nodes_.size()); }
  // The i-th node of a sequence that visits the fleet in no particular order (7919 is prime):
  // consecutive node_ids are neighbours in the indexes, which would flatter the caches.
  int scattered(int i) const { return static_cast<int>((static_cast<int64_t>(i) * 7919) % size()); }

  // The status changes of a node leaving and connecting again: two changes, two ticks.
  void leave_and_return(int i, int64_t& view_ns) {
    f_.plugin->on_disconnect(clients_[i]->view());
    view_ns += timed_tick();
    clients_[i] = &connect(*nodes_[i]);
    view_ns += timed_tick();
  }

  // A new manifest (a new etag) from `count` nodes (scattered from `first`), then one tick.
  int64_t announce_batch(int first, int count, int64_t issued_at_ms) {
    for (int k = 0; k < count; ++k) announce(scattered(first + k), issued_at_ms);
    return timed_tick();
  }

  int64_t full_rebuild() {
    const int64_t start = thread_cpu_ns();
    view_.on_tick(view_ms_, true);
    return thread_cpu_ns() - start;
  }

  // CPU ns of `of` on the current snapshot, the mean of `rounds` runs; `of` returns a size.
  int64_t on_snapshot(const std::function<size_t(const http::FleetSnapshot&)>& of, int rounds) const {
    const auto snapshot = view_.snapshot();
    const int64_t start = thread_cpu_ns();
    for (int i = 0; i < rounds; ++i) {
      if (of(*snapshot) == 0) std::abort();
    }
    return (thread_cpu_ns() - start) / rounds;
  }

  std::shared_ptr<const http::FleetSnapshot> snapshot() const { return view_.snapshot(); }
  uint64_t generation() const { return view_.snapshot()->generation(); }
  int64_t now() const { return f_.now; }

 private:
  testing::FakeClient& connect(const testing::TestNode& node) {
    testing::FakeClient& c = f_.connect_node(node);
    f_.check(c, kAclSubscribe, topic(node.node_id, "cmd"));  // identifies it: online
    return c;
  }
  void announce(int i, int64_t issued_at_ms) {
    const auto& node = *nodes_[i];
    const std::string manifest = testing::signed_manifest(node, testing::example_content(node, issued_at_ms));
    if (f_.publish(*clients_[i], topic(node.node_id, "announce"), manifest, true) != Verdict::kAllow) std::abort();
  }
  // Out of line so that callgrind can count just this (--toggle-collect='*timed_tick*').
  [[gnu::noinline]] int64_t timed_tick() {
    view_ms_ += http::PluginFleetView::kPublishIntervalMs;
    const int64_t start = thread_cpu_ns();
    view_.on_tick(view_ms_);
    return thread_cpu_ns() - start;
  }

  testing::PluginFixture f_;
  http::PluginFleetView view_;
  std::vector<std::shared_ptr<testing::TestNode>> nodes_;
  std::vector<testing::FakeClient*> clients_;
  int64_t view_ms_ = f_.now;
};

struct Figures {
  double status_ns = 0, announce_ns = 0, batch_ns = 0, rebuild_ns = 0, per_node_digest_ns = 0, by_kind_digest_ns = 0,
         list_page_ns = 0;
};

Figures measure(int size, int changes) {
  std::fprintf(stderr, "building a fleet of %d nodes ...\n", size);
  Fleet fleet(size);
  Figures out;
  const uint64_t generation = fleet.generation();

  int64_t ns = 0;
  for (int i = 0; i < changes / 2; ++i) fleet.leave_and_return(fleet.scattered(i), ns);
  out.status_ns = static_cast<double>(ns) / (changes / 2 * 2);

  ns = 0;
  for (int i = 0; i < changes; ++i) ns += fleet.announce_batch(i, 1, fleet.now() + 1 + i);
  out.announce_ns = static_cast<double>(ns) / changes;

  constexpr int kBatch = 50;  // a storm: ~200 announces/s over 250 ms ticks
  ns = 0;
  for (int i = 0; i < changes / kBatch; ++i) ns += fleet.announce_batch(i * kBatch, kBatch, fleet.now() + changes + 1 + i);
  out.batch_ns = static_cast<double>(ns) / (changes / kBatch * kBatch);

  // Every tick above made a snapshot: a change the view did not see would show here.
  if (fleet.generation() - generation != static_cast<uint64_t>(changes / 2 * 2 + changes + changes / kBatch)) std::abort();

  int64_t rebuild = 0;
  constexpr int kRebuilds = 5;
  for (int i = 0; i < kRebuilds; ++i) rebuild += fleet.full_rebuild();
  out.rebuild_ns = static_cast<double>(rebuild) / kRebuilds;

  const http::PerNodeTools per_node(SchemaRegistry::load(std::string(FLEETMCP_SOURCE_DIR) + "/schemas"),
                                  http::ToolNameStyle::kDotted, 100);
  const http::KindTools kinds(per_node);
  out.per_node_digest_ns =
      static_cast<double>(fleet.on_snapshot([](const auto& s) { return s.tools_digest("acme").size(); }, 1000));
  out.by_kind_digest_ns =
      static_cast<double>(fleet.on_snapshot([&](const auto& s) { return kinds.digest(s, "acme").size(); }, 5));
  // The second tools/list page (the cursor's name is found in O(log N), wherever it is).
  const auto first = per_node.list_page(*fleet.snapshot(), "acme", std::nullopt, http::kLatestRevision);
  const std::string cursor = (*first)["nextCursor"].GetString();
  out.list_page_ns = static_cast<double>(fleet.on_snapshot(
      [&](const auto& s) {
        return per_node.list_page(s, "acme", cursor, http::kLatestRevision)->operator[]("tools").Size();
      },
      20));
  return out;
}

// One fleet size when `large` is empty.
void row(const char* what, double small, std::optional<double> large) {
  if (!large) {
    std::printf("%-52s %12.1f\n", what, small / 1000);
    return;
  }
  std::printf("%-52s %12.1f %12.1f %8.2f\n", what, small / 1000, *large / 1000, *large / small);
}

}  // namespace

int main(int argc, char** argv) {
  const int changes = argc > 1 ? std::stoi(argv[1]) : 2000;
  const int small_size = argc > 2 ? std::stoi(argv[2]) : 1000;
  const int large_size = argc > 3 ? std::stoi(argv[3]) : 10000;
  const Figures small = measure(small_size, changes);
  const std::optional<Figures> large = large_size > 0 ? std::optional(measure(large_size, changes)) : std::nullopt;
  const auto of = [&](double Figures::*figure) { return large ? std::optional((*large).*figure) : std::nullopt; };
  std::printf("HTTP view (PluginFleetView): CPU us of the view's tick per node change, %d changes per figure\n", changes);
  std::printf("%-52s %12s %12s %8s\n", "", (std::to_string(small_size) + " nodes").c_str(),
              large ? (std::to_string(large_size) + " nodes").c_str() : "", large ? "ratio" : "");
  row("status change (leave / connect), one per tick", small.status_ns, of(&Figures::status_ns));
  row("announce with a new etag, one per tick", small.announce_ns, of(&Figures::announce_ns));
  row("announce with a new etag, 50 per tick, per change", small.batch_ns, of(&Figures::batch_ns));
  row("full rebuild of the snapshot (what a change cost before)", small.rebuild_ns, of(&Figures::rebuild_ns));
  std::printf("The front's list_changed check per new snapshot (background thread), CPU us:\n");
  row("per_node: the snapshot's tools digest", small.per_node_digest_ns, of(&Figures::per_node_digest_ns));
  row("by_kind: KindTools::digest (walks the tenant's tools)", small.by_kind_digest_ns, of(&Figures::by_kind_digest_ns));
  std::printf("A reader:\n");
  row("per_node tools/list: the second page of 100", small.list_page_ns, of(&Figures::list_page_ns));
  return 0;
}
