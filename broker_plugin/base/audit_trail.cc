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
  const auto unwritten = refusal_lines_.admit(key, now, HeldRefusal::of(record, now));
  if (!unwritten) {
    bump(counters_.audit_lines_throttled);
    return;
  }
  write_counted(record, *unwritten, now);
}

void AuditTrail::on_tick(int64_t now_ms) {
  for (const auto& [count, last] : refusal_lines_.ended(now_ms)) {
    // `last` stays counted in audit_lines_throttled: it was not written when it happened.
    write_counted(last.record(), count - 1, last.at_ms);
  }
}

// `record`, and when `unwritten` refusals of its kind were left out before it, how many.
void AuditTrail::write_counted(const AuditRecord& record, uint64_t unwritten, int64_t at_ms) {
  if (unwritten == 0) {
    log_->write(record, at_ms);
    return;
  }
  const std::string reason = std::string(record.reason) + (record.reason.empty() ? "" : "; ") +
                             std::to_string(unwritten) + " more like this since the previous line";
  AuditRecord counted = record;
  counted.reason = reason;
  log_->write(counted, at_ms);
}

AuditTrail::HeldRefusal AuditTrail::HeldRefusal::of(const AuditRecord& r, int64_t at_ms) {
  return {.via = std::string(r.via),
          .caller = std::string(r.caller),
          .tenant = std::string(r.tenant),
          .topic = std::string(r.topic),
          .tool = std::string(r.tool),
          .node_id = std::string(r.node_id),
          .decision = std::string(r.decision),
          .code = std::string(r.code),
          .reason = std::string(r.reason),
          .latency_ms = r.latency_ms,
          .at_ms = at_ms};
}

AuditRecord AuditTrail::HeldRefusal::record() const {
  return {.via = via,
          .caller = caller,
          .tenant = tenant,
          .topic = topic,
          .tool = tool,
          .node_id = node_id,
          .decision = decision,
          .code = code,
          .reason = reason,
          .latency_ms = latency_ms};
}

}  // namespace fleetmcp::plugin
