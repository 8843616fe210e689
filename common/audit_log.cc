#include "common/audit_log.h"

#include <array>
#include <charconv>

#include "common/error.h"

namespace fleetmcp {
namespace {

constexpr size_t kMaxField = 256;

void append_int(std::string& out, int64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

// Bytes written into a JSON string as they are: printable ASCII but '"' and '\\'.
constexpr auto kPlain = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c <= 0x7E; ++c) plain[c] = c != '"' && c != '\\';
  return plain;
}();

// `,"key":"value"` (`lead` is `,"key":"`), or nothing for an empty value. Every value is clamped
// to its first kMaxField bytes of printable ASCII (anything else becomes '?', as ascii_clamp
// does), whatever a client sent as its client id; of those only '"' and '\\' need escaping. The
// same bytes RapidJSON's Writer produced, without its buffers (a line is written on every call).
void field(std::string& out, std::string_view lead, std::string_view value) {
  if (value.empty()) return;
  out.append(lead);
  value = value.substr(0, kMaxField);
  size_t plain = 0;  // value[plain, i) is appended as it is, in one piece
  for (size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (kPlain[c]) continue;
    out.append(value.data() + plain, i - plain);
    const bool printable = c >= 0x20 && c <= 0x7E;
    if (printable) out.push_back('\\');
    out.push_back(printable ? value[i] : '?');
    plain = i + 1;
  }
  out.append(value.data() + plain, value.size() - plain);
  out.push_back('"');
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
  std::string out;
  out.reserve(256);  // a call's line is ~200 bytes: one allocation
  out.append("{\"ts_ms\":");
  append_int(out, now_ms);
  field(out, ",\"via\":\"", r.via);
  field(out, ",\"caller\":\"", r.caller);
  field(out, ",\"tenant\":\"", r.tenant);
  field(out, ",\"topic\":\"", r.topic);
  field(out, ",\"tool\":\"", r.tool);
  field(out, ",\"node_id\":\"", r.node_id);
  field(out, ",\"decision\":\"", r.decision);
  field(out, ",\"code\":\"", r.code);
  field(out, ",\"reason\":\"", r.reason);
  if (r.latency_ms) {
    out.append(",\"latency_ms\":");
    append_int(out, *r.latency_ms);
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
