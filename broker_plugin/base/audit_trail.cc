#include "broker_plugin/base/audit_trail.h"

namespace fleetmcp::plugin {

AuditTrail::AuditTrail(const std::string& path, int64_t refusal_interval_ms, const PluginClock& clock,
                       PluginCounters& counters)
    : log_(std::make_unique<AuditLog>(path)), refusal_lines_(refusal_interval_ms), clock_(clock), counters_(counters) {}

void AuditTrail::operator()(const AuditRecord& record, bool caller_verified) {
  const int64_t now = clock_();
  const bool refusal = record.decision == "drop" || record.decision == "deny" || record.decision == "refuse";
  if (!refusal) {
    log_->write(record, now);
    return;
  }
  std::string key;
  key.reserve(96);
  for (std::string_view part : {record.decision, record.code, record.tenant}) key.append(part).push_back('\n');
  if (caller_verified) key.append(record.caller);
  const auto unwritten = refusal_lines_.admit(key, now);
  if (!unwritten) {
    bump(counters_.audit_lines_throttled);
    return;
  }
  if (*unwritten == 0) {
    log_->write(record, now);
    return;
  }
  const std::string reason = std::string(record.reason) + (record.reason.empty() ? "" : "; ") +
                             std::to_string(*unwritten) + " more like this since the previous line";
  AuditRecord counted = record;
  counted.reason = reason;
  log_->write(counted, now);
}

}  // namespace fleetmcp::plugin
