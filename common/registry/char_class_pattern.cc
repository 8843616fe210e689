#include "common/registry/char_class_pattern.h"

#include <charconv>

namespace fleetmcp {
namespace {

// Reads one class member at `p` (a character or an escape) into `c`; false if it is none we read.
bool read_member(std::string_view s, size_t& p, unsigned& c) {
  if (p >= s.size()) return false;
  const unsigned char first = static_cast<unsigned char>(s[p]);
  if (first != '\\') {
    // '[' could open [:alpha:]; ']' ends the class; '-' is handled by the caller.
    if (first < 0x20 || first > 0x7E || first == '[' || first == ']') return false;
    c = first;
    ++p;
    return true;
  }
  if (p + 1 >= s.size()) return false;
  const char escaped = s[p + 1];
  if (escaped == 'x') {
    if (p + 4 > s.size()) return false;
    const auto hex = s.substr(p + 2, 2);
    const auto r = std::from_chars(hex.data(), hex.data() + 2, c, 16);
    if (r.ec != std::errc() || r.ptr != hex.data() + 2 || c >= 0x80) return false;
    p += 4;
    return true;
  }
  if (std::string_view("\\][-^.").find(escaped) == std::string_view::npos) return false;  // \d, \w, \u…
  c = static_cast<unsigned char>(escaped);
  p += 2;
  return true;
}

bool read_number(std::string_view s, size_t& p, size_t& n) {
  const auto r = std::from_chars(s.data() + p, s.data() + s.size(), n);
  if (r.ec != std::errc() || r.ptr == s.data() + p) return false;
  p = static_cast<size_t>(r.ptr - s.data());
  return true;
}

}  // namespace

std::optional<CharClassPattern> CharClassPattern::recognise(std::string_view s) {
  if (!s.starts_with("^[") || !s.ends_with("$")) return std::nullopt;
  CharClassPattern pattern;
  size_t p = 2;
  if (p < s.size() && s[p] == '^') return std::nullopt;  // negated
  while (p < s.size() && s[p] != ']') {
    if (s[p] == '-') {  // literal only as the last member
      if (p + 1 >= s.size() || s[p + 1] != ']' || p == 2) return std::nullopt;
      pattern.allowed_['-'] = true;
      ++p;
      continue;
    }
    unsigned lo = 0, hi = 0;
    if (!read_member(s, p, lo)) return std::nullopt;
    hi = lo;
    if (p + 1 < s.size() && s[p] == '-' && s[p + 1] != ']') {
      ++p;
      if (!read_member(s, p, hi) || hi < lo) return std::nullopt;
    }
    for (unsigned c = lo; c <= hi; ++c) pattern.allowed_[c] = true;
  }
  if (p >= s.size() || p == 2) return std::nullopt;  // unterminated, or [] (an empty class)
  ++p;  // ']'
  const std::string_view quantifier = s.substr(p, s.size() - 1 - p);
  if (quantifier == "*") return pattern;
  if (quantifier == "+") {
    pattern.min_ = 1;
    return pattern;
  }
  if (!quantifier.starts_with("{") || !quantifier.ends_with("}")) return std::nullopt;
  size_t q = 1;
  if (!read_number(quantifier, q, pattern.min_)) return std::nullopt;
  if (quantifier[q] == '}') {
    pattern.max_ = pattern.min_;
  } else if (quantifier[q] == ',') {
    ++q;
    if (quantifier[q] != '}' && !read_number(quantifier, q, pattern.max_)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  // RE2 refuses repeats above 1000 and m > n: such a pattern never gets here (it fails to load).
  if (q != quantifier.size() - 1 || pattern.min_ > pattern.max_) return std::nullopt;
  return pattern;
}

}  // namespace fleetmcp
