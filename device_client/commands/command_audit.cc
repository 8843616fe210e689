#include "device_client/commands/command_audit.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/base/json.h"

namespace fleetmcp::device {

CommandAudit::~CommandAudit() {
  if (fd_ >= 0) ::close(fd_);
}

void CommandAudit::configure(size_t capacity, std::string file) {
  std::lock_guard lock(mutex_);
  if (capacity_.load() != 0) return;  // one audit per node, whichever capability configured it first
  file_ = std::move(file);
  if (!file_.empty()) {
    load_locked(file_ + ".1");
    const size_t from_rotated = entries_.size();
    load_locked(file_);
    lines_in_file_ = entries_.size() - from_rotated;
    while (entries_.size() > capacity) entries_.pop_front();
    if (!entries_.empty()) next_seq_ = entries_.back().seq + 1;
    open_locked();
  }
  capacity_.store(capacity, std::memory_order_release);
}

void CommandAudit::load_locked(const std::string& path) {
  const auto text = try_read_file(path);
  if (!text) return;  // absent: nothing recorded yet
  std::string_view rest = *text;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    auto entry = from_line(line);
    if (entry && (entries_.empty() || entry->seq > entries_.back().seq)) entries_.push_back(std::move(*entry));
  }
}

void CommandAudit::open_locked() {
  fd_ = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd_ < 0) {
    throw Error(ErrorCode::kInternal, "cannot open the audit file " + file_ + ": " + std::strerror(errno),
                "give file= a path in a directory the service user may write, or leave it out to keep the audit in memory");
  }
}

void CommandAudit::rotate_locked() {
  ::close(fd_);
  fd_ = -1;
  const std::string rotated = file_ + ".1";
  std::rename(file_.c_str(), rotated.c_str());
  lines_in_file_ = 0;
  try {
    open_locked();
  } catch (const Error&) {
    // The disk went away under a running node: the audit goes on in memory.
  }
}

void CommandAudit::record(AuditEntry entry) {
  const size_t capacity = capacity_.load(std::memory_order_acquire);
  if (capacity == 0) return;
  std::lock_guard lock(mutex_);
  entry.seq = next_seq_++;
  if (fd_ >= 0) {
    if (lines_in_file_ >= capacity) rotate_locked();
    if (fd_ >= 0) {
      const std::string line = to_line(entry) + "\n";
      // One write on an O_APPEND descriptor: a line is whole or, after a power cut, torn at the end.
      if (::write(fd_, line.data(), line.size()) == static_cast<ssize_t>(line.size())) ++lines_in_file_;
    }
  }
  entries_.push_back(std::move(entry));
  if (entries_.size() > capacity) entries_.pop_front();
}

CommandAudit::Page CommandAudit::newest_first(std::optional<uint64_t> before, size_t limit) const {
  std::lock_guard lock(mutex_);
  Page page;
  page.retained = entries_.size();
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (before && it->seq >= *before) continue;
    if (page.entries.size() == limit) {
      page.next_before = page.entries.back().seq;
      break;
    }
    page.entries.push_back(*it);
  }
  return page;
}

std::string CommandAudit::to_line(const AuditEntry& e) {
  std::string line = R"({"seq":)";
  json::append_integer(line, static_cast<int64_t>(e.seq));
  line += R"(,"received_ms":)";
  json::append_integer(line, e.received_ms);
  for (const auto& [key, text] : {std::pair<std::string_view, std::string_view>{"msg_id", e.msg_id},
                                  {"cap_id", e.cap_id}, {"verb", e.verb}, {"outcome", e.outcome}}) {
    line += ",\"";
    line += key;
    line += "\":";
    json::append_string(line, text);
  }
  line += R"(,"duration_ms":)";
  json::append_integer(line, e.duration_ms);
  line += '}';
  return line;
}

std::optional<AuditEntry> CommandAudit::from_line(std::string_view line) {
  const auto parsed = json::parse_strict(line);
  if (!parsed || !parsed->IsObject()) return std::nullopt;
  const json::Document& d = *parsed;
  const auto seq = json::get_int64(d, "seq");
  const auto received = json::get_int64(d, "received_ms");
  const auto duration = json::get_int64(d, "duration_ms");
  const auto msg_id = json::get_string(d, "msg_id");
  const auto cap_id = json::get_string(d, "cap_id");
  const auto verb = json::get_string(d, "verb");
  const auto outcome = json::get_string(d, "outcome");
  if (!seq || *seq < 1 || !received || !duration || !msg_id || !cap_id || !verb || !outcome) return std::nullopt;
  return AuditEntry{static_cast<uint64_t>(*seq), *received, std::string(*msg_id), std::string(*cap_id),
                    std::string(*verb), std::string(*outcome), *duration};
}

}  // namespace fleetmcp::device
