#include <algorithm>
#include <charconv>

#include "common/ids/unit_name.h"

#include "device_client/base/catalogue_error.h"
#include "device_client/backends/service_control.h"

namespace fleetmcp::device {
namespace {

std::optional<uint64_t> number(const UnitProperties& p, std::string_view key) {
  const auto it = p.find(key);
  if (it == p.end()) return std::nullopt;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  if (ec != std::errc() || end != it->second.data() + it->second.size()) return std::nullopt;
  return v;
}

std::string text(const UnitProperties& p, std::string_view key) {
  const auto it = p.find(key);
  return it == p.end() ? std::string() : it->second;
}

std::optional<uint64_t> unix_seconds(std::string_view v) {
  if (v.size() < 2 || v[0] != '@') return std::nullopt;
  uint64_t s = 0;
  const auto [end, ec] = std::from_chars(v.data() + 1, v.data() + v.size(), s);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return s;
}

bool yes(const UnitProperties& p, std::string_view key) { return text(p, key) == "yes"; }

// systemd says "infinity" or UINT64_MAX ("[not set]") for an unknown memory figure.
constexpr uint64_t kUnset = UINT64_MAX;

}  // namespace

UnitProperties parse_systemctl_show(std::string_view text) {
  UnitProperties out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    const auto eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    out.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  return out;
}

std::vector<std::string> dependent_service_names(const UnitProperties& p) {
  std::vector<std::string> names;
  for (const std::string_view key : {"RequiredBy", "BoundBy", "WantedBy"}) {
    const std::string value = text(p, key);  // space-separated, as systemctl show prints lists
    std::string_view list = value;
    while (!list.empty()) {
      const size_t space = list.find(' ');
      const std::string_view name = list.substr(0, space);
      if (is_service_unit_name(name)) names.emplace_back(name);
      list = space == std::string_view::npos ? std::string_view() : list.substr(space + 1);
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool is_running_state(std::string_view active_state) {
  return active_state == "active" || active_state == "reloading" || active_state == "activating";
}

Result<ServiceStatus> service_status_from(const UnitProperties& p, uint64_t now_us) {
  if (text(p, "LoadState") == "not-found") {
    return not_found("systemd has no unit " + text(p, "Id"), "install the unit, or fix the unit= setting of this capability");
  }
  ServiceStatus s;
  s.name = text(p, "Id");
  s.description = text(p, "Description");
  s.status = text(p, "ActiveState");
  s.sub_status = text(p, "SubState");
  s.unit_file_state = text(p, "UnitFileState");
  s.enabled = s.unit_file_state == "enabled" || s.unit_file_state == "enabled-runtime" ||
              s.unit_file_state == "alias" || s.unit_file_state == "indirect";
  s.pid = static_cast<int64_t>(number(p, "MainPID").value_or(0));
  if (auto m = number(p, "MemoryCurrent"); m && *m != kUnset) s.memory_bytes = *m;
  if (auto r = number(p, "NRestarts")) s.restart_count = static_cast<int64_t>(*r);
  // Timestamps in the form `systemctl show --timestamp=unix` prints them: "@<unix seconds>".
  if (auto since = unix_seconds(text(p, "ActiveEnterTimestamp")); since && *since > 0 && s.status == "active" &&
      now_us / 1'000'000 >= *since) {
    s.uptime_seconds = static_cast<int64_t>(now_us / 1'000'000 - *since);
  }
  s.fragment_path = text(p, "FragmentPath");
  s.preset = text(p, "UnitFilePreset");
  s.user = text(p, "User");
  s.group = text(p, "Group");
  s.working_directory = text(p, "WorkingDirectory");
  s.restart_policy = text(p, "Restart");
  s.can_start = yes(p, "CanStart");
  s.can_stop = yes(p, "CanStop");
  s.can_reload = yes(p, "CanReload");
  return s;
}

}  // namespace fleetmcp::device
