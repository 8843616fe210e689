#include "device_client/config/capability_settings.h"

#include <charconv>

namespace fleetmcp::device {
namespace {

std::optional<int64_t> parse_integer(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

const CapabilitySetting* CapabilitySettings::find(std::string_view key) {
  used_.emplace(key);
  for (const auto& s : cap_.settings) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

void CapabilitySettings::fail(std::string_view key, std::string_view what) const {
  cap_.fail(std::string(key) + ": " + std::string(what));
}

std::optional<std::string> CapabilitySettings::text(std::string_view key) {
  const CapabilitySetting* s = find(key);
  if (s == nullptr) return std::nullopt;
  if (s->value.empty()) fail(key, "a value is required");
  return s->value;
}

std::string CapabilitySettings::required_text(std::string_view key, std::string_view example) {
  auto v = text(key);
  if (!v) fail(key, "required for kind " + cap_.kind + ", e.g. " + std::string(example));
  return *v;
}

int64_t CapabilitySettings::integer(std::string_view key, int64_t lo, int64_t hi, int64_t fallback) {
  const auto v = text(key);
  if (!v) return fallback;
  const auto n = parse_integer(*v);
  if (!n || *n < lo || *n > hi) {
    fail(key, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  return *n;
}

int64_t CapabilitySettings::required_integer(std::string_view key, int64_t lo, int64_t hi) {
  if (!text(key)) fail(key, "required for kind " + cap_.kind);
  return integer(key, lo, hi, 0);
}

bool CapabilitySettings::flag(std::string_view key, bool fallback) {
  const auto v = text(key);
  if (!v) return fallback;
  if (*v == "true") return true;
  if (*v == "false") return false;
  fail(key, "must be true or false");
}

std::vector<int64_t> CapabilitySettings::integer_list(std::string_view key, int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  const auto v = text(key);
  if (!v) return out;
  std::string_view rest = *v;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const auto n = parse_integer(rest.substr(0, comma));
    if (!n || *n < lo || *n > hi) {
      fail(key, "must be a comma-separated list of integers from " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    out.push_back(*n);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return out;
}

bool CapabilitySettings::simulated_backend(bool node_is_simulated) {
  const auto v = text("backend");
  if (!v) return node_is_simulated;
  if (*v == "sim") return true;
  if (*v == "real") return false;
  fail("backend", "must be sim or real");
}

void CapabilitySettings::finish() const {
  for (const auto& s : cap_.settings) {
    if (!used_.count(s.key)) fail(s.key, "unknown setting for kind " + cap_.kind + " (docs/catalogue.md lists them)");
  }
}

}  // namespace fleetmcp::device
