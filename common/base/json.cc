#include "common/base/json.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <locale.h>
#include <new>
#include <string>
#include <unordered_set>
#include <vector>

namespace fleetmcp::json {
namespace {

// True when s is well-formed UTF-8 in the RFC 3629 sense: no overlong forms, no surrogates
// (RapidJSON turns a lone "\udc00" escape into the 3-byte encoding of a surrogate; we refuse it
// here), nothing above U+10FFFF.
bool is_valid_utf8(const char* s, size_t n) {
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  size_t i = 0;
  // Eight bytes at a time while they are all ASCII (ids, names and most text are).
  for (uint64_t word; i + 8 <= n; i += 8) {
    std::memcpy(&word, p + i, 8);
    if (word & 0x8080808080808080u) break;
  }
  while (i < n) {
    const unsigned c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return false;
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;
    i += len;
  }
  return true;
}

// The keys seen so far in one open object. Objects are small (a cmd envelope has under a dozen
// keys): a linear scan over a reused vector costs no allocation per key; a large object switches
// to a hash set so a document of thousands of keys stays linear. The keys are views into the
// text being parsed in place, which the document keeps.
class ObjectKeys {
 public:
  void clear() {
    few_.clear();
    many_.clear();
  }
  // False when the key was already there.
  bool add(std::string_view key) {
    if (many_.empty() && few_.size() < kScanLimit) {
      for (const std::string_view seen : few_) {
        if (seen == key) return false;
      }
      few_.emplace_back(key);
      return true;
    }
    if (many_.empty()) many_.insert(few_.begin(), few_.end());
    return many_.insert(key).second;
  }

 private:
  static constexpr size_t kScanLimit = 32;
  std::vector<std::string_view> few_;
  std::unordered_set<std::string_view> many_;
};

// A SAX filter in front of the Document: enforces depth, key uniqueness and UTF-8, and remembers
// why it stopped so the error can say so.
class StrictHandler {
 public:
  // `keys` is scratch space reused from parse to parse (see parse_into).
  StrictHandler(Document& doc, int max_depth, std::vector<ObjectKeys>& keys)
      : doc_(doc), max_depth_(max_depth), keys_(keys) {}

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  // Numbers arrive as text (kParseNumbersAsStringsFlag): RapidJSON 1.1.0's own decimal
  // conversion misrounds near the subnormal range and crashes on some long mantissas with large
  // negative exponents, so the text is converted here with the C library instead.
  bool RawNumber(const char* s, rapidjson::SizeType n, bool /*copy*/) { return number(std::string_view(s, n)); }
  // Strings and keys are copied into the document (short ones inline in the value), as a parse
  // from a read-only text would: a value moved into another document stays valid after this one
  // is gone, as it always has for short strings.
  bool String(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    if (!is_valid_utf8(s, n)) return fail("string is not valid UTF-8 (or contains a lone surrogate)");
    return doc_.String(s, n, true);
  }
  bool StartObject() {
    if (!enter()) return false;
    if (open_objects_ == keys_.size()) keys_.emplace_back();
    keys_[open_objects_++].clear();  // reused: its vector keeps its capacity
    return doc_.StartObject();
  }
  bool Key(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    if (!is_valid_utf8(s, n)) return fail("object key is not valid UTF-8 (or contains a lone surrogate)");
    if (!keys_[open_objects_ - 1].add(std::string_view(s, n))) {
      return fail("duplicate object key \"" + std::string(s, std::min<size_t>(n, 64)) + "\"");
    }
    return doc_.Key(s, n, true);
  }
  bool EndObject(rapidjson::SizeType members) {
    --open_objects_;
    --depth_;
    return doc_.EndObject(members);
  }
  bool StartArray() { return enter() && doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return doc_.EndArray(elements);
  }

  const std::string& reason() const { return reason_; }

 private:
  bool number(std::string_view text) {
    const char* first = text.data();
    const char* last = first + text.size();
    if (text.find_first_of(".eE") == std::string_view::npos) {
      int64_t i;
      if (auto r = std::from_chars(first, last, i); r.ec == std::errc() && r.ptr == last) {
        if (i >= std::numeric_limits<int>::min() && i <= std::numeric_limits<int>::max()) {
          return doc_.Int(static_cast<int>(i));
        }
        return doc_.Int64(i);
      }
      uint64_t u;
      if (auto r = std::from_chars(first, last, u); r.ec == std::errc() && r.ptr == last) return doc_.Uint64(u);
    }
    double d;
    auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc() && r.ptr == last) return doc_.Double(d);
    // Out of range: underflow becomes the correctly signed zero or subnormal that strtod
    // gives (what JSON.parse does); overflow is refused, since JSON has no Infinity.
    static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", nullptr);
    const std::string copy(text);
    d = strtod_l(copy.c_str(), nullptr, c_locale);
    if (std::isinf(d)) return fail("number " + copy.substr(0, 40) + " is out of the range of a double");
    return doc_.Double(d);
  }

  bool enter() {
    if (++depth_ > max_depth_) return fail("nesting deeper than " + std::to_string(max_depth_) + " levels");
    return true;
  }
  bool fail(std::string why) {
    reason_ = std::move(why);
    return false;
  }

  Document& doc_;
  int max_depth_;
  int depth_ = 0;
  std::vector<ObjectKeys>& keys_;  // [0, open_objects_) are the objects open now, outermost first
  size_t open_objects_ = 0;
  std::string reason_;
};

// No kParseValidateEncodingFlag: StrictHandler checks every decoded string and key with the
// stricter is_valid_utf8 (which also refuses the surrogates RapidJSON's own check lets through),
// and a non-ASCII byte outside a string is a syntax error anyway. RapidJSON's check ran a
// transcoder call per character, doubling the cost of parsing a cmd (bench/profile.sh device).
// In situ: the text is copied once (memcpy) into the document's own allocator and decoded in place
// there, instead of a character at a time onto the reader's growing stack (the front parses a
// request body and the plugin a cmd_ack per call: bench/profile.sh calls --callgrind).
constexpr unsigned kStrictFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseInsituFlag;

// Fills `doc` (empty, with the allocator it is to use) from text, strictly.
Status parse_into(Document& doc, std::string_view text, ErrorCode on_error, ParseLimits limits) {
  if (text.size() > limits.max_bytes) {
    return ErrorEnvelope(on_error,
                "invalid JSON: " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                    std::to_string(limits.max_bytes),
                "send a smaller document");
  }
  // RapidJSON takes a NUL byte for the end of its input, so "{}\0junk" would parse as "{}". JSON
  // text has no unescaped NUL anywhere (in a string it is \u0000), so one is refused up front.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return ErrorEnvelope(on_error, "invalid JSON at offset " + std::to_string(nul) + ": a NUL byte",
                "send strict JSON: a NUL character inside a string is written \\u0000");
  }
  // The terminating NUL ends the stream where the text ends.
  char* in_place = static_cast<char*>(doc.GetAllocator().Malloc(text.size() + 1));
  // An empty string_view may hold a null data(), which memcpy must not be given even for 0 bytes.
  if (!text.empty()) std::memcpy(in_place, text.data(), text.size());
  in_place[text.size()] = '\0';
  // The handler's per-object key lists keep their capacity from one parse to the next on this
  // thread: no allocation per object. (A parse runs no code of its caller, so none nests.)
  thread_local std::vector<ObjectKeys> keys;
  StrictHandler handler(doc, limits.max_depth, keys);
  rapidjson::Reader reader;
  rapidjson::ParseResult result;
  auto generator = [&](Document& d) {
    (void)d;
    rapidjson::InsituStringStream stream(in_place);
    result = reader.Parse<kStrictFlags>(stream, handler);
    return !result.IsError();
  };
  doc.Populate(generator);
  if (result.IsError()) {
    std::string why = !handler.reason().empty() ? handler.reason()
                      : result.Code() == rapidjson::kParseErrorStringInvalidEncoding
                          ? "string is not valid UTF-8"
                          : rapidjson::GetParseError_En(result.Code());
    return ErrorEnvelope(on_error, "invalid JSON at offset " + std::to_string(result.Offset()) + ": " + why,
                         "send strict JSON: UTF-8, no duplicate keys, at most " + std::to_string(limits.max_depth) +
                             " levels deep, nothing after the value");
  }
  return {};
}

// The Document's value stack (used while it is built) takes its memory from here, instead of a
// CrtAllocator the Document would allocate for itself. Stateless, so shared by every thread.
rapidjson::CrtAllocator stack_allocator;
constexpr size_t kStackBytes = 1024;  // RapidJSON's default
constexpr size_t kRapidJsonChunkBytes = 64 * 1024;  // a Document's own allocator's chunk
constexpr size_t kKeptWriterBytes = 64 * 1024;  // to_string's buffer keeps up to this much

// RapidJSON 1.1 gives a Document's own allocator 64 KiB chunks and no way to choose another
// size: the first chunk was a malloc on glibc's slow path (and a free that consolidates) for every
// parse, the HTTP front's request bodies included (~3,000 instructions a parse: bench/profile.sh
// calls --callgrind). The allocator is still empty here (no chunk yet), so it is replaced in place
// by one whose chunks fit the text: its copy, its values and their strings take about twice its
// size; a document that grows later takes further chunks of that size.
void fit_chunks_to(Document& doc, size_t text_bytes) {
  Allocator& allocator = doc.GetAllocator();
  const size_t chunk = std::min<size_t>(2 * text_bytes + 256, kRapidJsonChunkBytes);
  allocator.~Allocator();
  new (&allocator) Allocator(chunk);
}

}  // namespace

Result<Document> parse_strict(std::string_view text, ErrorCode on_error, ParseLimits limits) {
  Document doc(nullptr, kStackBytes, &stack_allocator);
  fit_chunks_to(doc, text.size());
  if (Status parsed = parse_into(doc, text, on_error, limits); !parsed) return std::move(parsed).error();
  return doc;
}

ParseArena::ParseArena(size_t bytes) : buffer_(new char[bytes]), allocator_(buffer_.get(), bytes) {}

Result<Document> parse_strict(std::string_view text, ParseArena& arena, ErrorCode on_error, ParseLimits limits) {
  arena.allocator_.Clear();  // the previous document ends here
  Document doc(&arena.allocator_, kStackBytes, &stack_allocator);
  if (Status parsed = parse_into(doc, text, on_error, limits); !parsed) return std::move(parsed).error();
  return doc;
}

std::string to_string(const Value& value) {
  // Reused on this thread (a Writer runs no code of its caller, so no call nests): the only
  // allocation is the returned string's. A buffer a large document grew is given back.
  thread_local rapidjson::StringBuffer buf;
  buf.Clear();
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  value.Accept(w);
  std::string text(buf.GetString(), buf.GetSize());
  if (buf.GetSize() > kKeptWriterBytes) {
    buf.Clear();
    buf.ShrinkToFit();
  }
  return text;
}

void append_integer(std::string& out, int64_t n) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out.append(digits, end);
}

namespace {

// JSON escapes control characters, '"' and '\\'; every other byte is written as it is.
constexpr auto kEscaped = [] {
  std::array<bool, 256> escaped{};
  for (unsigned c = 0; c < 0x20; ++c) escaped[c] = true;
  escaped['"'] = escaped['\\'] = true;
  return escaped;
}();

// The index of the first byte from `i` on that JSON escapes, or text.size(). Most text has none
// (results, ids, names), so it is scanned eight bytes at a time: (w - n*ones) & ~w & highs is
// non-zero exactly when some byte of w is below n (the bit trick of "Bit Twiddling Hacks",
// haszero/hasless), and a byte equal to '"' or '\\' is a zero byte after the xor. A word with a
// hit is then scanned byte by byte, which finds the first one whatever the byte order.
size_t next_escaped(std::string_view text, size_t i) {
  constexpr uint64_t kOnes = 0x0101010101010101, kHighs = 0x8080808080808080;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    const uint64_t below_space = w - kOnes * 0x20;
    const uint64_t quote = (w ^ (kOnes * '"')) - kOnes;
    const uint64_t backslash = (w ^ (kOnes * '\\')) - kOnes;
    if (((below_space | quote | backslash) & ~w & kHighs) != 0) break;  // xor keeps each high bit
  }
  while (i < text.size() && !kEscaped[static_cast<unsigned char>(text[i])]) ++i;
  return i;
}

}  // namespace

void append_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += '"';
  size_t plain = 0;  // start of the bytes not yet appended, which need no escape
  for (size_t i = next_escaped(text, 0); i < text.size(); i = next_escaped(text, plain)) {
    const auto c = static_cast<unsigned char>(text[i]);
    out.append(text, plain, i - plain);
    plain = i + 1;
    out += '\\';
    switch (c) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '\b': out += 'b'; break;
      case '\f': out += 'f'; break;
      case '\n': out += 'n'; break;
      case '\r': out += 'r'; break;
      case '\t': out += 't'; break;
      default:
        out += "u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
  }
  out.append(text, plain, text.size() - plain);
  out += '"';
}

const Value* find(const Value& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::optional<std::string_view> get_string(const Value& object, std::string_view key) {
  const Value* v = find(object, key);
  if (!v || !v->IsString()) return std::nullopt;
  return std::string_view(v->GetString(), v->GetStringLength());
}

std::optional<int64_t> get_int64(const Value& object, std::string_view key) {
  const Value* v = find(object, key);
  if (!v || !v->IsInt64()) return std::nullopt;
  return v->GetInt64();
}

std::optional<double> get_number(const Value& object, std::string_view key) {
  const Value* v = find(object, key);
  if (!v || !v->IsNumber()) return std::nullopt;
  return v->GetDouble();
}

std::optional<bool> get_bool(const Value& object, std::string_view key) {
  const Value* v = find(object, key);
  if (!v || !v->IsBool()) return std::nullopt;
  return v->GetBool();
}

}  // namespace fleetmcp::json
