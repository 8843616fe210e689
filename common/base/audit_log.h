// The audit log: one JSON line per decision (docs/protocol.md §7, RFC-0005 §12): time, caller, tenant,
// topic or tool, node_id, decision, code, and a server-templated reason or the latency. Never
// payloads, arguments or results. Thread-safe (calls finish on the broker thread, but refusals
// at submit time happen on the caller's thread); the file is reopened on SIGHUP for rotation.
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/base/result.h"

namespace fleetmcp {

struct AuditRecord {
  std::string_view via;       // tool calls of the HTTP front: "mcp" or "rfc0009"
  std::string_view caller;    // node_id, agent sub, "plugin", or "" when unknown
  std::string_view tenant;
  std::string_view topic;
  std::string_view tool;
  std::string_view node_id;
  std::string_view decision;  // "allow", "deny", "accept", "refuse", "clear", "kick", "ok", "error", "drop" …
  std::string_view code;      // E_… when there is one
  std::string_view reason;    // ASCII, server-templated
  std::optional<int64_t> latency_ms;
};

class AuditLog {
 public:
  // "-" writes to stderr; "" disables the log.
  explicit AuditLog(std::string path);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  void write(const AuditRecord& record, int64_t now_ms);
  // A line formatted elsewhere (the HTTP front's call lines), appended whole.
  void write_line(std::string_view line);
  // After a rotation (SIGHUP). Failed: no file until the next reopen() succeeds.
  Status reopen();
  // The line write() would append, without the newline.
  static std::string format(const AuditRecord& record, int64_t now_ms);

 private:
  Status open_locked();

  std::string path_;
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  std::string line_;  // write_line's buffer, under mutex_
};

}  // namespace fleetmcp
