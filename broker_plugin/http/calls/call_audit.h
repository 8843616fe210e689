// The front's audit trail: one JSON line per tool call or refusal (docs/protocol.md §7, RFC-0005 §12):
// time, caller, tenant, tool, node_id, decision, code, latency, and which endpoint. Never
// arguments, results or token contents. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/base/audit_log.h"

namespace fleetmcp::http {

// An AuditRecord with `via` set, the tool (dotted when resolved, else as asked), and the
// decision "ok", "error" (the call ran and failed), "refuse" (never dispatched) or "stream".
class CallAudit {
 public:
  using Sink = std::function<void(std::string_view line)>;

  // "-" = stderr, "" = nowhere, else a file opened for appending (common/base/audit_log.h).
  static CallAudit to_file(const std::string& path);
  explicit CallAudit(Sink sink) : sink_(std::move(sink)) {}

  void write(const AuditRecord& record, int64_t now_ms) const {
    if (sink_) sink_(AuditLog::format(record, now_ms));
  }

 private:
  Sink sink_;
};

}  // namespace fleetmcp::http
