// RFC 8785 JSON Canonicalization Scheme: object keys sorted by UTF-16 code units, no whitespace,
// numbers in ECMAScript Number.prototype.toString form, strings escaped as the RFC says.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "common/base/json.h"

namespace fleetmcp::jcs {

// Appends the canonical form of `value` to `out`. Throws Error(kBadRequest) on a non-finite number.
void canonicalize(const json::Value& value, std::string& out);

// Where a value (named by its address inside the canonicalized tree) was written: out[begin, end).
// Both stay 0 when the value is not in the tree.
struct ValueSpan {
  const json::Value* value = nullptr;
  size_t begin = 0, end = 0;
};
// canonicalize, also reporting where each of `spans`' values landed. Lets a caller derive the
// canonical form of the same document with a string value changed (manifest signing, docs/protocol.md §5)
// by splicing instead of canonicalizing again.
void canonicalize(const json::Value& value, std::string& out, std::span<ValueSpan> spans);
std::string canonicalize(const json::Value& value);

// parse_strict + canonicalize, or why the text is not strict JSON.
Result<std::string> canonicalize_text(std::string_view json_text);

// ECMAScript Number::toString(x) for finite x ("-0" -> "0", 1e21 -> "1e+21", 1e-7 -> "1e-7").
void format_number(double x, std::string& out);

}  // namespace fleetmcp::jcs
