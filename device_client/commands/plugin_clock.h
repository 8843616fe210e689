// What a node can know about the plugin's clock, so that it never runs a `cmd` whose caller has
// been told it failed (docs/protocol.md §4.3 step 5). A cmd's deadline is `ts_ms + deadline_ms` on
// the *plugin's* wall clock; the node has its own clocks, which may lag (a Pi without a real-time
// clock, D25), be stepped by NTP, or stand still while the process is stopped.
//
// Every plugin timestamp the node receives (a cmd's ts_ms, its own status's since_ms) was taken
// before it arrived, so `arrival − plugin time` on the node's monotonic clock is an upper bound of
// the offset between the two clocks (the latency is ≥ 0). The smallest such sample bounds the
// plugin's clock from below: now on the plugin clock ≥ node monotonic now − bound. A cmd whose
// deadline is before that is certainly late; a timely one is never taken for late. The monotonic
// clock is immune to steps of the node's wall clock; the bound loosens with age (the two clocks may
// run at slightly different rates) and is dropped after kMaxSampleAgeMs, which also limits what a
// step back of the plugin's clock can do (the node would take timely cmds for late until then).
// Without a sample the node's wall clock stands in, with the protocol's 60 s allowance.
//
// A plain object: every time is passed in. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>

namespace fleetmcp::device {

class PluginClock {
 public:
  // The node's monotonic clock and the plugin's wall clock may drift apart by this much per
  // second of a sample's age: 1000 ppm, twice the NTP frequency correction limit of 500 ppm.
  static constexpr int64_t kDriftPpm = 1000;
  static constexpr int64_t kMaxSampleAgeMs = 60 * 60 * 1000;
  // docs/protocol.md §6.1 check 4: a node's clock may be up to 60 s ahead of the broker's.
  static constexpr int64_t kWallClockAllowanceMs = 60 * 1000;

  // The plugin's clock read `plugin_ms` when it sent something the node received at `mono_ms`.
  void observe(int64_t plugin_ms, int64_t mono_ms);
  // The earliest the plugin's clock can read now, the node's monotonic clock reading `mono_ms`
  // and its wall clock `wall_ms`.
  int64_t earliest_now(int64_t mono_ms, int64_t wall_ms) const;
  // Forget what was learnt (a new session may lead to another broker, or to a clock put right).
  void reset() { bound_.reset(); }

 private:
  // The offset bound grown by the drift allowance for its age; nullopt once too old.
  std::optional<int64_t> bound_at(int64_t mono_ms) const;

  std::optional<int64_t> bound_;  // ≥ node monotonic − plugin clock, when learnt at bound_mono_ms_
  int64_t bound_mono_ms_ = 0;
};

}  // namespace fleetmcp::device
