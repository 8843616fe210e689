// The front's audit trail: one JSON line per tool call or refusal (DESIGN §7, RFC-0005 §12):
// time, caller, tenant, tool, node_id, decision, code, latency, and which endpoint. Never
// arguments, results or token contents. Thread-safe.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace fleetmcp::http {

struct AuditEntry {
  std::string_view via;       // "mcp" or "rfc0009"
  std::string_view caller;    // token sub ("" when unauthenticated)
  std::string_view tenant;
  std::string_view tool;      // dotted when resolved, else as asked (clamped)
  std::string_view node_id;
  std::string_view decision;  // "ok", "error" (the call ran and failed), "refuse" (never dispatched), "stream"
  std::string_view code;      // E_… when there is one
  std::optional<int64_t> latency_ms;
};

class CallAudit {
 public:
  using Sink = std::function<void(std::string_view line)>;

  // "-" = stderr, "" = nowhere, else a file opened for appending.
  static CallAudit to_file(const std::string& path);
  explicit CallAudit(Sink sink) : sink_(std::move(sink)) {}

  void write(const AuditEntry& entry, int64_t now_ms) const;
  static std::string format(const AuditEntry& entry, int64_t now_ms);

 private:
  Sink sink_;
};

}  // namespace fleetmcp::http
