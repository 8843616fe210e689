#include "common/base/audit_log.h"

#include <algorithm>

#include "common/base/error.h"
#include "common/base/json.h"

namespace fleetmcp {
namespace {

constexpr size_t kMaxField = 256;

// Printable ASCII without '"' or '\\': written between quotes as it is, with nothing to escape.
bool plain_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c >= 0x20 && c <= 0x7E && c != '"' && c != '\\';
  });
}

// `,"key":value` (`lead` is `,"key":`), or nothing for an empty value. Every value is clamped to
// its first kMaxField bytes of printable ASCII, whatever a client sent as its client id. Most
// are plain already (ids, names, codes): those are copied between quotes in one pass, without
// the escaper and without a copy of the value.
void field(std::string& out, std::string_view lead, std::string_view value) {
  if (value.empty()) return;
  out.append(lead);
  const std::string_view head = value.substr(0, kMaxField);
  if (plain_ascii(head)) {
    out.push_back('"');
    out.append(head);
    out.push_back('"');
  } else {
    json::append_string(out, ascii_clamp(value, kMaxField));
  }
}

}  // namespace

AuditLog::AuditLog(std::string path) : path_(std::move(path)) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_locked().value();  // a constructor: the file is opened at start-up or not at all
}

AuditLog::~AuditLog() {
  if (file_ != nullptr && file_ != stderr) std::fclose(file_);
}

Status AuditLog::open_locked() {
  if (file_ != nullptr && file_ != stderr) std::fclose(file_);
  file_ = nullptr;
  if (path_.empty()) return {};
  if (path_ == "-") {
    file_ = stderr;
    return {};
  }
  file_ = std::fopen(path_.c_str(), "a");
  if (file_ == nullptr) {
    return ErrorEnvelope(ErrorCode::kInternal, "cannot open audit log " + path_ + " for appending",
                         "fix the path or the directory's permissions (the broker may run as user mosquitto)");
  }
  std::setvbuf(file_, nullptr, _IOLBF, 0);  // one line, one write: readable while the broker runs
  return {};
}

Status AuditLog::reopen() {
  std::lock_guard<std::mutex> lock(mutex_);
  return open_locked();
}

std::string AuditLog::format(const AuditRecord& r, int64_t now_ms) {
  std::string out;
  out.reserve(256);  // a call's line is ~200 bytes: one allocation
  out.append("{\"ts_ms\":");
  json::append_integer(out, now_ms);
  field(out, ",\"via\":", r.via);
  field(out, ",\"caller\":", r.caller);
  field(out, ",\"tenant\":", r.tenant);
  field(out, ",\"topic\":", r.topic);
  field(out, ",\"tool\":", r.tool);
  field(out, ",\"node_id\":", r.node_id);
  field(out, ",\"decision\":", r.decision);
  field(out, ",\"code\":", r.code);
  field(out, ",\"reason\":", r.reason);
  if (r.latency_ms) {
    out.append(",\"latency_ms\":");
    json::append_integer(out, *r.latency_ms);
  }
  out.push_back('}');
  return out;
}

void AuditLog::write(const AuditRecord& record, int64_t now_ms) { write_line(format(record, now_ms)); }

void AuditLog::write_line(std::string_view text) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_ == nullptr) return;
  // One fwrite of the line and its newline (stderr is unbuffered: two would be two writes that
  // another writer could come between), through a buffer that is allocated once.
  line_.assign(text);
  line_.push_back('\n');
  std::fwrite(line_.data(), 1, line_.size(), file_);
}

}  // namespace fleetmcp
