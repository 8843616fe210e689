#include "device_client/commands/command_audit.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/base/json.h"

namespace fleetmcp::device {

bool is_actuation(SafetyClass safety_class, std::string_view verb) {
  return safety_class != SafetyClass::kReadOnly && !is_read_verb(verb);
}

CommandAudit::~CommandAudit() {
  for (const Ring* ring : {&reads_, &actions_}) {
    if (ring->fd >= 0) ::close(ring->fd);
  }
}

void CommandAudit::configure(size_t capacity, std::string file) {
  std::lock_guard lock(mutex_);
  if (capacity_.load() != 0) return;  // one audit per node, whichever capability configured it first
  if (!file.empty()) {
    reads_.file = file;
    actions_.file = file + ".actions";
    load(reads_, false, capacity);
    load(actions_, true, capacity);
    for (const Ring* ring : {&reads_, &actions_}) {
      if (!ring->entries.empty()) next_seq_ = std::max(next_seq_, ring->entries.back().seq + 1);
    }
    open(reads_).value();  // start-up: a file= that cannot be opened stops the node
    open(actions_).value();
  }
  capacity_.store(capacity, std::memory_order_release);
}

void CommandAudit::load(Ring& ring, bool acts, size_t capacity) {
  read_file(ring.file + ".1", acts, ring.entries);
  const size_t from_rotated = ring.entries.size();
  read_file(ring.file, acts, ring.entries);
  ring.lines_in_file = ring.entries.size() - from_rotated;
  while (ring.entries.size() > capacity) ring.entries.pop_front();
}

void CommandAudit::read_file(const std::string& path, bool acts, std::deque<AuditEntry>& into) {
  const auto text = try_read_file(path);
  if (!text) return;  // absent: nothing recorded yet
  std::string_view rest = *text;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    auto entry = from_line(line);
    if (!entry || (!into.empty() && entry->seq <= into.back().seq)) continue;
    entry->acts = acts;  // the file says which ring
    into.push_back(std::move(*entry));
  }
}

Status CommandAudit::open(Ring& ring) {
  ring.fd = ::open(ring.file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (ring.fd < 0) {
    return ErrorEnvelope(ErrorCode::kInternal, "cannot open the audit file " + ring.file + ": " + std::strerror(errno),
                         "give file= a path in a directory the service user may write, or leave it out to keep the audit "
                         "in memory");
  }
  return {};
}

void CommandAudit::append(Ring& ring, const AuditEntry& entry, size_t capacity) {
  if (ring.fd < 0) return;
  if (ring.lines_in_file >= capacity) {
    ::close(ring.fd);
    ring.fd = -1;
    std::rename(ring.file.c_str(), (ring.file + ".1").c_str());
    ring.lines_in_file = 0;
    if (!open(ring)) return;  // the disk went away under a running node: the audit goes on in memory
  }
  const std::string line = to_line(entry) + "\n";
  // One write on an O_APPEND descriptor: a line is whole or, after a power cut, torn at the end.
  if (::write(ring.fd, line.data(), line.size()) == static_cast<ssize_t>(line.size())) ++ring.lines_in_file;
}

void CommandAudit::record(AuditEntry entry) {
  const size_t capacity = capacity_.load(std::memory_order_acquire);
  if (capacity == 0) return;
  std::lock_guard lock(mutex_);
  entry.seq = next_seq_++;
  Ring& ring = entry.acts ? actions_ : reads_;
  append(ring, entry, capacity);
  ring.entries.push_back(std::move(entry));
  if (ring.entries.size() > capacity) ring.entries.pop_front();
}

CommandAudit::Page CommandAudit::newest_first(std::optional<uint64_t> before, size_t limit) const {
  std::lock_guard lock(mutex_);
  Page page;
  page.retained = reads_.entries.size() + actions_.entries.size();
  auto read = reads_.entries.rbegin(), action = actions_.entries.rbegin();
  // The newer of the two rings' next entries, or nullptr when both are spent.
  auto next = [&]() -> const AuditEntry* {
    const bool reads_left = read != reads_.entries.rend(), actions_left = action != actions_.entries.rend();
    if (reads_left && (!actions_left || read->seq > action->seq)) return &*read++;
    return actions_left ? &*action++ : nullptr;
  };
  while (const AuditEntry* e = next()) {
    if (before && e->seq >= *before) continue;
    if (page.entries.size() == limit) {
      page.next_before = page.entries.back().seq;
      break;
    }
    page.entries.push_back(*e);
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
