#include "broker_plugin/http/calls/call_audit.h"

#include <memory>

#include "common/base/error.h"

namespace fleetmcp::http {

CallAudit CallAudit::to_file(const std::string& path) {
  std::shared_ptr<AuditLog> log;
  try {
    log = std::make_shared<AuditLog>(path);
  } catch (const Error& e) {
    throw Error(ErrorCode::kBadRequest, "plugin_opt_http_audit_log: " + e.envelope().message, e.envelope().suggested_fix);
  }
  return CallAudit([log](std::string_view line) { log->write_line(line); });
}

}  // namespace fleetmcp::http
