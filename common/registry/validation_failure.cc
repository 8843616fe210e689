#include "common/registry/validation_failure.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "common/base/error.h"
#include "common/base/text.h"
#include "common/registry/own_constraints.h"

namespace fleetmcp::schema_check {
namespace {

// A bound in a valijson message ("5000.000000") as the schema writes it.
std::string bound_of(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  return end == s.c_str() ? s : format_number(d);
}

// valijson's context ("<root>", "[capabilities]", "[0]") as a JSON pointer.
std::string pointer(const std::vector<std::string>& context) {
  std::string p;
  for (size_t i = 1; i < context.size(); ++i) {
    std::string_view seg = context[i];
    if (seg.size() >= 2 && seg.front() == '[' && seg.back() == ']') seg = seg.substr(1, seg.size() - 2);
    p += '/';  // appended apart: GCC 12 -O3 warns (-Wrestrict, falsely) on "/" + string here
    p += pointer_segment(seg);
  }
  return p;
}

bool consume(std::string_view s, std::string_view prefix, std::string_view& rest) {
  if (!s.starts_with(prefix)) return false;
  rest = s.substr(prefix.size());
  return true;
}

// valijson's messages that state a bound, in our words; the first prefix that matches is used.
struct Rewrite {
  std::string_view prefix, ours;
  bool number;  // the bound is a number valijson wrote with decimals ("5000.000000"), else a count
};
constexpr Rewrite kRewrites[] = {
    {"Expected number less than or equal to ", "exceeds maximum ", true},
    {"Expected number less than ", "is not less than exclusive maximum ", true},
    {"Expected number greater than or equal to ", "is below minimum ", true},
    {"Expected number greater than ", "is not greater than exclusive minimum ", true},
    {"String should be no more than ", "is longer than maxLength ", false},
    {"String should be no fewer than ", "is shorter than minLength ", false},
    {"Array should contain no more than ", "has more items than maxItems ", false},
    {"Array should contain no fewer than ", "has fewer items than minItems ", false},
};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Candidate unknown_property(std::string path, size_t depth, std::string_view key, std::vector<std::string> allowed) {
  std::string message = "has a property the schema does not allow (" +
                        (allowed.empty() ? std::string("additionalProperties is false") : "allowed: " + joined(allowed)) + ")";
  return Candidate{std::move(path), std::move(message), depth, false, std::string(key), std::move(allowed)};
}

std::string format_number(double d) {
  if (d == std::floor(d) && std::fabs(d) < 9e15) return std::to_string(static_cast<int64_t>(d));
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

ValidationFailure most_specific(const std::vector<Candidate>& all) {
  const Candidate* best = nullptr;
  for (const auto& c : all) {
    if (!best || c.depth > best->depth || (c.depth == best->depth && best->summary && !c.summary)) best = &c;
  }
  if (!best) return {"", "is not valid against the schema", {}, {}};
  return {best->path, ascii_clamp(best->message), best->unknown_property, best->allowed};
}

std::string pointer_segment(std::string_view segment) {
  std::string out;
  for (char c : segment) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

Candidate translate(const std::vector<std::string>& context, std::string_view description) {
  Candidate c{pointer(context), "", context.size(), false};
  std::string_view d = description, rest;
  const auto first_word = [](std::string_view s) { return std::string(s.substr(0, s.find(' '))); };
  const auto strip = [](std::string_view s) {
    while (!s.empty() && (s.back() == '.' || s.back() == '\'')) s.remove_suffix(1);
    return std::string(s);
  };
  if (!d.empty() && d.front() == OwnCheck::kOwnMessage) {
    c.message = std::string(d.substr(1));
  } else if (consume(d, "Missing required property '", rest)) {
    c.message = "is missing required property \"" + strip(rest) + "\"";
  } else if (d.starts_with("Object contains a property that could not be validated")) {
    // "...constraints: 'key'.": the key is kept apart, for for_sender() only.
    const auto quote = d.find(": '");
    const std::string key = quote == std::string_view::npos ? std::string() : strip(d.substr(quote + 3));
    return unknown_property(c.path, c.depth, key, {});
  } else if (const auto* r = std::find_if(std::begin(kRewrites), std::end(kRewrites),
                                          [&](const Rewrite& w) { return consume(d, w.prefix, rest); });
             r != std::end(kRewrites)) {
    c.message = std::string(r->ours) + (r->number ? bound_of(rest) : first_word(rest));
  } else if (d.find("violate uniqueness constraint") != std::string_view::npos) {
    c.message = "has duplicate items (uniqueItems)";
  } else {
    c.message = ascii_clamp(strip(d));
    c.summary = d.starts_with("Failed to validate");  // "a child schema failed" notes
  }
  return c;
}

}  // namespace fleetmcp::schema_check

namespace fleetmcp {

std::string ValidationFailure::for_sender() const {
  if (unknown_property.empty()) return message;
  return "has unknown property '" + ascii_clamp(unknown_property, 64) + "'" +
         (allowed.empty() ? std::string() : " (allowed: " + schema_check::joined(allowed) + ")");
}

std::string ValidationFailure::fix_for_sender(std::string_view otherwise) const {
  if (unknown_property.empty()) return std::string(otherwise);
  const std::vector<std::string_view> names(allowed.begin(), allowed.end());
  const auto near = nearest(unknown_property, names, 1);
  return "remove '" + ascii_clamp(unknown_property, 64) + "'" +
         (near.empty() ? std::string() : " (did you mean '" + std::string(near.front()) + "'?)");
}

}  // namespace fleetmcp
