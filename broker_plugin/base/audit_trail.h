// The plugin's audit lines, shared by the core and its collaborators (Admission, Announces,
// CallDispatch): every decision gets a line, but drop/deny/refuse lines are throttled (issue 24):
// per (decision, code, tenant, caller) one line per plugin_opt_audit_refusal_interval_ms, the next
// one saying how many it stands for; the counters stay exact (audit_lines_throttled counts the
// lines left out). Broker thread, except the log itself, which the HTTP front shares.
#pragma once

#include <cstdint>
#include <memory>
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

  AuditLog& log() const { return *log_; }  // the log itself is thread-safe

 private:
  std::unique_ptr<AuditLog> log_;
  RefusalThrottle refusal_lines_;
  const PluginClock& clock_;
  PluginCounters& counters_;
};

}  // namespace fleetmcp::plugin
