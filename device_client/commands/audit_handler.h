// logs.audit (Doc 05 §2.2 logs.get_recent_audit_logs): pages the node's own CommandAudit, newest
// first, with a cursor that stays valid while new entries arrive (it names a position, not an
// offset). `capability.audit = logs.audit [file=/var/lib/fleetmcp/audit.jsonl] [max_entries=500]`.
#pragma once

#include <string_view>

#include "device_client/commands/command_audit.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kAuditKind = "logs.audit";

class AuditHandler : public ToolHandler {
 public:
  explicit AuditHandler(const CommandAudit& audit) : ToolHandler(SafetyClass::kReadOnly, {"get"}), audit_(audit) {}

  // Memory only: runs inline on the receiving thread.
  bool may_block(const ToolCall&) const override { return false; }
  Result<json::Document> run(const ToolCall& call) override;

 private:
  const CommandAudit& audit_;
};

}  // namespace fleetmcp::device
