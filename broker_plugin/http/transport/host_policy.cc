#include "broker_plugin/http/transport/host_policy.h"

#include <algorithm>

namespace fleetmcp::http {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool same_name(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) { return lower(x) == lower(y); });
}

bool all_digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The host of "host[:port]" ("[v6]" with its brackets), or "" when the value is not of that form.
std::string_view host_part(std::string_view value) {
  size_t end = 0;
  if (value.starts_with('[')) {
    end = value.find(']');
    if (end == std::string_view::npos) return {};
    ++end;
  } else {
    end = std::min(value.find(':'), value.size());
  }
  const std::string_view host = value.substr(0, end), rest = value.substr(end);
  const auto stray = [](char c) { return c == ' ' || c == '\t' || c == '/' || c == '@' || c == '\\'; };
  if (host.empty() || std::any_of(host.begin(), host.end(), stray)) return {};
  if (!rest.empty() && (rest.front() != ':' || !all_digits(rest.substr(1)))) return {};
  return host;
}

}  // namespace

HostPolicy::HostPolicy(const std::vector<std::string>& names) : names_{"localhost", "127.0.0.1", "[::1]"} {
  for (std::string name : names) {
    std::transform(name.begin(), name.end(), name.begin(), lower);
    if (name.find(':') != std::string::npos && !name.starts_with('[')) name = "[" + name + "]";  // a bare IPv6 address
    if (!name.empty() && std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
  }
}

HostPolicy::Verdict HostPolicy::check(std::string_view host_header) const {
  const std::string_view host = host_part(host_header);
  if (host.empty()) return Verdict::kMalformed;
  const bool ours = std::any_of(names_.begin(), names_.end(), [&](const std::string& n) { return same_name(n, host); });
  return ours ? Verdict::kAllowed : Verdict::kNotOurs;
}

}  // namespace fleetmcp::http
