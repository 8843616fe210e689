// fleetmcp's JSON layer: RapidJSON values plus a strict parser for untrusted bytes.
//
// Everything in fleetmcp that reads JSON from a device, an agent or a file goes through
// parse_strict(): valid UTF-8 only (no lone surrogates, in raw bytes or \u escapes), no duplicate
// object keys, nesting depth <= max_depth, nothing but whitespace after the value. Failures throw
// fleetmcp::Error with the caller's code and a message naming the byte offset.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"

namespace fleetmcp::json {

using Document = rapidjson::Document;
using Value = rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

struct ParseLimits {
  size_t max_bytes = 1 << 20;
  int max_depth = 64;
};

// Parses text strictly (see above). On failure throws Error(on_error, "invalid JSON at offset N: …").
Document parse_strict(std::string_view text, ErrorCode on_error = ErrorCode::kBadRequest,
                      ParseLimits limits = {});

// Compact serialisation (RapidJSON Writer; not canonical — use jcs::canonicalize for that).
std::string to_string(const Value& value);

// Small typed accessors for code that reads validated documents. They return nullopt/nullptr
// when the member is missing or of another type; they never throw.
const Value* find(const Value& object, std::string_view key);
std::optional<std::string_view> get_string(const Value& object, std::string_view key);
std::optional<int64_t> get_int64(const Value& object, std::string_view key);
std::optional<double> get_number(const Value& object, std::string_view key);
std::optional<bool> get_bool(const Value& object, std::string_view key);

// A string value that refers to (copies) `text` into the allocator.
inline Value string_value(std::string_view text, Allocator& alloc) {
  return Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

}  // namespace fleetmcp::json
