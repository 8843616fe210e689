#include "device_client/update/update_files.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <unistd.h>

#include "common/base/file_text.h"

namespace fleetmcp::device {
namespace {

ErrorEnvelope bad_file(std::string_view file, std::string_view what) {
  return ErrorEnvelope{ErrorCode::kInternal, "update state file " + std::string(file) + ": " + std::string(what),
                       "remove the file; the next manage.server invoke writes a new one"};
}

// One line per field; a value never holds a newline (messages are flattened by their writers).
void line(std::string& out, std::string_view key, std::string_view value) {
  out.append(key).append("=");
  for (char c : value) out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  out.append("\n");
}

}  // namespace

bool is_update_status(std::string_view status) {
  return status == "pending" || status == "running" || status == "succeeded" || status == "failed";
}

bool update_in_progress(std::string_view status) { return status == "pending" || status == "running"; }

std::string format_update_request(const UpdateRequest& request) {
  std::string out;
  line(out, "channel", request.channel);
  line(out, "target_version", request.target_version);
  return out;
}

std::string format_update_state(const UpdateState& state) {
  std::string out;
  line(out, "status", state.status);
  line(out, "started_at_ms", state.started_at_ms ? std::to_string(state.started_at_ms) : "");
  line(out, "finished_at_ms", state.finished_at_ms ? std::to_string(state.finished_at_ms) : "");
  line(out, "message", state.message);
  line(out, "reason", state.reason);
  line(out, "old_version", state.old_version);
  line(out, "new_version", state.new_version);
  line(out, "request_id", state.request_id);
  return out;
}

// Not common/base/config_file's reader: that one trims values and ends them at " #" (device.conf's
// trailing comments), while a message here is apt's text verbatim and may hold " #" or edge spaces.
Result<UpdateState> parse_update_state(std::string_view text, std::string_view file) {
  UpdateState s;
  int line_no = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_no;
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) return bad_file(file, "line " + std::to_string(line_no) + " has no '='");
    const std::string_view key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "status") {
      s.status = value;
    } else if (key == "started_at_ms" || key == "finished_at_ms") {
      int64_t ms = 0;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
      if (!value.empty() && (ec != std::errc() || ptr != value.data() + value.size() || ms < 0)) {
        return bad_file(file, std::string(key) + " is not a time in milliseconds");
      }
      (key == "started_at_ms" ? s.started_at_ms : s.finished_at_ms) = ms;
    } else if (key == "message") {
      s.message = value;
    } else if (key == "reason") {
      s.reason = value;
    } else if (key == "old_version") {
      s.old_version = value;
    } else if (key == "new_version") {
      s.new_version = value;
    } else if (key == "request_id") {
      s.request_id = value;
    }  // other keys: a newer script's, ignored
  }
  if (!is_update_status(s.status)) return bad_file(file, "status '" + s.status + "' is not pending, running, succeeded or failed");
  // The output schemas bound versions to 64 characters: a longer one is unknown, not a result
  // the dispatcher would refuse.
  for (std::string* v : {&s.old_version, &s.new_version}) {
    if (v->size() > 64) v->clear();
  }
  return s;
}

Status replace_file(const std::string& dir, std::string_view name, std::string_view text) {
  const std::string path = dir + "/" + std::string(name);
  std::string tmp = dir + "/." + std::string(name) + ".XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) return bad_file(path, "cannot create a temporary file in " + dir + " (errno " + std::to_string(errno) + ")");
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return bad_file(path, "cannot be written");
  }
  return {};
}

Result<std::optional<UpdateState>> read_update_state(const std::string& dir, std::string_view name) {
  const std::string path = dir + "/" + std::string(name);
  if (access(path.c_str(), F_OK) != 0) return std::optional<UpdateState>{};
  auto text = try_read_file(path);
  if (!text) return bad_file(path, "cannot be read");
  auto state = parse_update_state(*text, path);
  if (!state) return state.error();
  return std::optional<UpdateState>(std::move(*state));
}

}  // namespace fleetmcp::device
