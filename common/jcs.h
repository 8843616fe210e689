// RFC 8785 JSON Canonicalization Scheme: object keys sorted by UTF-16 code units, no whitespace,
// numbers in ECMAScript Number.prototype.toString form, strings escaped as the RFC says.
#pragma once

#include <string>
#include <string_view>

#include "common/json.h"

namespace fleetmcp::jcs {

// Appends the canonical form of `value` to `out`. Throws Error(kBadRequest) on a non-finite number.
void canonicalize(const json::Value& value, std::string& out);
std::string canonicalize(const json::Value& value);

// parse_strict + canonicalize.
std::string canonicalize_text(std::string_view json_text);

// ECMAScript Number::toString(x) for finite x ("-0" -> "0", 1e21 -> "1e+21", 1e-7 -> "1e-7").
void format_number(double x, std::string& out);

}  // namespace fleetmcp::jcs
