#include "common/registry/semver.h"

#include <algorithm>
#include <charconv>

#include "common/base/text.h"

namespace fleetmcp {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}
bool all_digits(std::string_view s) { return std::all_of(s.begin(), s.end(), is_digit); }

// SemVer 2.0.0 numeric identifier: "0" or no leading zero; must fit in 64 bits.
std::optional<uint64_t> parse_numeric(std::string_view s) {
  if (s.empty() || !all_digits(s) || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Dot-separated identifiers, none empty, [0-9A-Za-z-] only; numeric ones without leading zeros
// when `numeric_rule` (prerelease) is set.
bool valid_identifiers(std::string_view s, bool numeric_rule) {
  for (const auto id : split(s, '.')) {
    if (id.empty() || !std::all_of(id.begin(), id.end(), is_ident_char)) return false;
    if (numeric_rule && all_digits(id) && id.size() > 1 && id[0] == '0') return false;
  }
  return true;
}

int compare_identifier(std::string_view a, std::string_view b) {
  const bool na = all_digits(a), nb = all_digits(b);
  if (na && nb) {  // numerically; no leading zeros, so length decides first
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
  }
  if (na != nb) return na ? -1 : 1;  // numeric identifiers have lower precedence
  const int c = a.compare(b);        // ASCII order
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

std::optional<SemVer> SemVer::parse(std::string_view text) {
  SemVer v;
  const size_t plus = text.find('+');
  if (plus != std::string_view::npos) {
    const auto build = text.substr(plus + 1);
    if (!valid_identifiers(build, false)) return std::nullopt;
    v.build = std::string(build);
    text = text.substr(0, plus);
  }
  const size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    const auto pre = text.substr(dash + 1);
    if (!valid_identifiers(pre, true)) return std::nullopt;
    for (const auto id : split(pre, '.')) v.prerelease.emplace_back(id);
    text = text.substr(0, dash);
  }
  const auto core = split(text, '.');
  if (core.size() != 3) return std::nullopt;
  const auto major = parse_numeric(core[0]), minor = parse_numeric(core[1]),
             patch = parse_numeric(core[2]);
  if (!major || !minor || !patch) return std::nullopt;
  v.major = *major, v.minor = *minor, v.patch = *patch;
  return v;
}

std::string SemVer::to_string() const {
  std::string s = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  for (size_t i = 0; i < prerelease.size(); ++i) s += (i == 0 ? "-" : ".") + prerelease[i];
  if (!build.empty()) s += "+" + build;
  return s;
}

int compare(const SemVer& a, const SemVer& b) {
  if (a.major != b.major) return a.major < b.major ? -1 : 1;
  if (a.minor != b.minor) return a.minor < b.minor ? -1 : 1;
  if (a.patch != b.patch) return a.patch < b.patch ? -1 : 1;
  // A version without prerelease has higher precedence than one with (SemVer §11.3).
  if (a.prerelease.empty() || b.prerelease.empty()) {
    if (a.prerelease.empty() == b.prerelease.empty()) return 0;
    return a.prerelease.empty() ? 1 : -1;
  }
  const size_t n = std::min(a.prerelease.size(), b.prerelease.size());
  for (size_t i = 0; i < n; ++i) {
    const int c = compare_identifier(a.prerelease[i], b.prerelease[i]);
    if (c != 0) return c;
  }
  if (a.prerelease.size() == b.prerelease.size()) return 0;
  return a.prerelease.size() < b.prerelease.size() ? -1 : 1;
}

std::optional<SemVerRange> SemVerRange::parse(std::string_view text) {
  SemVerRange range;
  for (const auto token : split(text, ' ')) {
    if (token.empty()) continue;  // runs of spaces, leading or trailing spaces
    Op op = Op::kEq;
    size_t skip = 0;
    if (token.starts_with(">=")) op = Op::kGe, skip = 2;
    else if (token.starts_with("<=")) op = Op::kLe, skip = 2;
    else if (token.starts_with(">")) op = Op::kGt, skip = 1;
    else if (token.starts_with("<")) op = Op::kLt, skip = 1;
    else if (token.starts_with("=")) op = Op::kEq, skip = 1;
    // Wildcards ("1.x", "*"), "||", "~", "^" and partial versions all fail here.
    const auto version = SemVer::parse(token.substr(skip));
    if (!version) return std::nullopt;
    range.comparators_.emplace_back(op, *version);
  }
  if (range.comparators_.empty()) return std::nullopt;
  return range;
}

bool SemVerRange::contains(const SemVer& v) const {
  for (const auto& [op, bound] : comparators_) {
    const int c = compare(v, bound);
    const bool ok = op == Op::kEq ? c == 0
                  : op == Op::kGt ? c > 0
                  : op == Op::kGe ? c >= 0
                  : op == Op::kLt ? c < 0
                                  : c <= 0;
    if (!ok) return false;
  }
  return true;
}

std::optional<SemVer> negotiate_version(const NegotiationRequest& request,
                                        const std::vector<SemVer>& provided) {
  // The provider's own entry is returned, so its build metadata (ignored by precedence) survives.
  const auto supported = [&](const SemVer& v) -> std::optional<SemVer> {
    const auto it = std::find(provided.begin(), provided.end(), v);
    if (it == provided.end()) return std::nullopt;
    return *it;
  };
  if (request.preferred) {
    if (auto v = supported(*request.preferred)) return v;
  }
  for (const auto& wanted : request.acceptable) {
    if (auto v = supported(wanted)) return v;
  }
  if (request.range) {
    std::optional<SemVer> best;
    for (const auto& p : provided) {
      if (request.range->contains(p) && (!best || *best < p)) best = p;
    }
    return best;
  }
  return std::nullopt;
}

}  // namespace fleetmcp
