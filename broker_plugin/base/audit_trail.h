// The plugin's audit lines, shared by the core and its collaborators (Admission, Announces,
// CallDispatch): every decision gets a line, but drop/deny/refuse lines are throttled (issue 24):
// per (decision, code, tenant, caller) one line per plugin_opt_audit_refusal_interval_ms, the next
// one saying how many it stands for; the counters stay exact (audit_lines_throttled counts the
// lines left out). A burst shorter than the interval is written when the interval ends, from the
// tick (issue 33 item 8): its last refusal, counting the rest. Broker thread, except the log
// itself, which the HTTP front shares.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/plugin_counters.h"
#include "common/base/audit_log.h"
#include "common/base/refusal_throttle.h"

namespace fleetmcp::plugin {

class AuditTrail {
 public:
  // Opens `path` ("-": stderr, "": no log); throws Error when it cannot be opened.
  AuditTrail(const std::string& path, int64_t refusal_interval_ms, const PluginClock& clock, PluginCounters& counters);

  // `caller_verified` false (a refused identity names whatever it claimed) leaves the caller out
  // of the throttle's key, so made-up names cannot multiply the lines.
  void operator()(const AuditRecord& record, bool caller_verified = true);
  // Writes the refusals counted but not yet written of every kind whose interval has ended.
  void on_tick(int64_t now_ms);

  AuditLog& log() const { return *log_; }  // the log itself is thread-safe

 private:
  // A refusal counted but not written yet: its record, owned, and when it happened.
  struct HeldRefusal {
    std::string via, caller, tenant, topic, tool, node_id, decision, code, reason;
    std::optional<int64_t> latency_ms;
    int64_t at_ms = 0;

    static HeldRefusal of(const AuditRecord& record, int64_t at_ms);
    AuditRecord record() const;  // views into this
  };
  void write_counted(const AuditRecord& record, uint64_t unwritten, int64_t at_ms);

  std::unique_ptr<AuditLog> log_;
  RefusalThrottle<HeldRefusal> refusal_lines_;
  const PluginClock& clock_;
  PluginCounters& counters_;
};

}  // namespace fleetmcp::plugin
