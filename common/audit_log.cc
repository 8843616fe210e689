#include "common/audit_log.h"

#include <algorithm>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/error.h"

namespace fleetmcp {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr size_t kMaxField = 256;

bool printable_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c >= 0x20 && c <= 0x7E;
  });
}

void field(Writer& w, const char* key, std::string_view value) {
  if (value.empty()) return;
  w.Key(key);
  // Every field is clamped to printable ASCII, whatever a client sent as its client id. Most
  // already are (ids, names, codes): those are written as they are, without a copy.
  if (value.size() <= kMaxField && printable_ascii(value)) {
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
    return;
  }
  const std::string safe = ascii_clamp(value, kMaxField);
  w.String(safe.data(), static_cast<rapidjson::SizeType>(safe.size()));
}

}  // namespace

AuditLog::AuditLog(std::string path) : path_(std::move(path)) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_locked();
}

AuditLog::~AuditLog() {
  if (file_ != nullptr && file_ != stderr) std::fclose(file_);
}

void AuditLog::open_locked() {
  if (file_ != nullptr && file_ != stderr) std::fclose(file_);
  file_ = nullptr;
  if (path_.empty()) return;
  if (path_ == "-") {
    file_ = stderr;
    return;
  }
  file_ = std::fopen(path_.c_str(), "a");
  if (file_ == nullptr) {
    throw Error(ErrorCode::kInternal, "cannot open audit log " + path_ + " for appending",
                "fix the path or the directory's permissions (the broker may run as user mosquitto)");
  }
  std::setvbuf(file_, nullptr, _IOLBF, 0);  // one line, one write: readable while the broker runs
}

void AuditLog::reopen() {
  std::lock_guard<std::mutex> lock(mutex_);
  open_locked();
}

std::string AuditLog::format(const AuditRecord& r, int64_t now_ms) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("ts_ms");
  w.Int64(now_ms);
  field(w, "via", r.via);
  field(w, "caller", r.caller);
  field(w, "tenant", r.tenant);
  field(w, "topic", r.topic);
  field(w, "tool", r.tool);
  field(w, "node_id", r.node_id);
  field(w, "decision", r.decision);
  field(w, "code", r.code);
  field(w, "reason", r.reason);
  if (r.latency_ms) {
    w.Key("latency_ms");
    w.Int64(*r.latency_ms);
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

void AuditLog::write(const AuditRecord& record, int64_t now_ms) { write_line(format(record, now_ms)); }

void AuditLog::write_line(std::string_view text) {
  std::string line(text);
  line += '\n';
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_ != nullptr) std::fwrite(line.data(), 1, line.size(), file_);
}

}  // namespace fleetmcp
