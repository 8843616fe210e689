// fleetmcp's JSON layer: RapidJSON values plus a strict parser for untrusted bytes.
//
// Everything in fleetmcp that reads JSON from a device, an agent or a file goes through
// parse_strict(): valid UTF-8 only (no lone surrogates, in raw bytes or \u escapes), no duplicate
// object keys, nesting depth <= max_depth, nothing but whitespace after the value. A failure is the
// envelope of the caller's code with a message naming the byte offset (never the bytes).
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/base/result.h"

namespace fleetmcp::json {

using Document = rapidjson::Document;
using Value = rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

struct ParseLimits {
  size_t max_bytes = 1 << 20;
  int max_depth = 64;
};

// Parses text strictly (see above), or says why not: (on_error, "invalid JSON at offset N: …").
Result<Document> parse_strict(std::string_view text, ErrorCode on_error = ErrorCode::kBadRequest,
                      ParseLimits limits = {});

// Memory for one parsed document at a time, reused from parse to parse: for a thread that parses
// and drops a small document again and again (the plugin's cmd_ack, one per call). A Document of
// its own allocates RapidJSON's first 64 KiB chunk per parse (a malloc and a free on glibc's slow
// path, ~3,000 instructions: bench/profile.sh calls --callgrind); a parse into an arena allocates
// nothing while the document fits in its buffer (more takes extra chunks, freed at the next parse).
// One thread at a time.
class ParseArena {
 public:
  explicit ParseArena(size_t bytes = 16 * 1024);
  ParseArena(const ParseArena&) = delete;
  ParseArena& operator=(const ParseArena&) = delete;

 private:
  friend Result<Document> parse_strict(std::string_view, ParseArena&, ErrorCode, ParseLimits);
  std::unique_ptr<char[]> buffer_;
  Allocator allocator_;
};

// parse_strict into `arena`: the document lives in the arena's memory and is valid until the next
// parse into the same arena, which ends it (so is everything taken from it, and the arena must
// outlive it).
Result<Document> parse_strict(std::string_view text, ParseArena& arena, ErrorCode on_error = ErrorCode::kBadRequest,
                      ParseLimits limits = {});

// Compact serialisation (RapidJSON Writer; not canonical — use jcs::canonicalize for that).
std::string to_string(const Value& value);

// Appends `text` as a JSON string literal (quoted and escaped) byte for byte as RapidJSON's Writer
// writes it (\" \\ \b \f \n \r \t, \u00XX for other control characters, every other byte as it
// is), for messages built by appending to one reserved std::string.
void append_string(std::string& out, std::string_view text);
// Appends `n` in decimal, as RapidJSON's Writer (and RFC 8785 for integers) write it.
void append_integer(std::string& out, int64_t n);

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
