#include "common/crypto/jcs.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/base/error.h"

namespace fleetmcp::jcs {
namespace {

using Member = json::Value::Member;

// Integers of magnitude up to 2^53 are exactly what Number::toString prints digit for digit;
// beyond that the shortest round-trip digits may be fewer than the integer's own digits.
constexpr int64_t kMaxExactInteger = int64_t{1} << 53;

// Byte -> what the RFC 8785 §3.2.2.2 string serialisation writes for it: 0 means verbatim,
// a letter means "\<letter>", 'u' means "\u00XX".
constexpr std::array<char, 256> make_escape_table() {
  std::array<char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = 'u';
  t['\b'] = 'b';
  t['\t'] = 't';
  t['\n'] = 'n';
  t['\f'] = 'f';
  t['\r'] = 'r';
  t['"'] = '"';
  t['\\'] = '\\';
  return t;
}
constexpr std::array<char, 256> kEscape = make_escape_table();

void append_string(const char* s, size_t n, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t run = 0;  // start of the pending verbatim run
  for (size_t i = 0; i < n; ++i) {
    const char e = kEscape[static_cast<unsigned char>(s[i])];
    if (e == 0) continue;
    out.append(s + run, i - run);
    run = i + 1;
    if (e == 'u') {
      const auto c = static_cast<unsigned char>(s[i]);
      const char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out.append(u, sizeof u);
    } else {
      const char pair[2] = {'\\', e};
      out.append(pair, sizeof pair);
    }
  }
  out.append(s + run, n - run);
  out.push_back('"');
}

// RFC 8785 §3.2.3 orders keys by their UTF-16 code units. For valid UTF-8, byte order equals
// code-point order, and UTF-16 order equals code-point order except that a supplementary-plane
// character (a surrogate pair, 0xD800..) sorts before U+E000..U+FFFF. At the first differing byte
// both strings are at the same code-point boundary or inside code points with the same lead byte;
// only when the lead bytes themselves are a 4-byte lead (F0..F4) against EE/EF (U+E000..U+FFFF)
// does the byte order give the wrong answer.
bool utf16_less(const json::Value& a, const json::Value& b) {
  const auto* x = reinterpret_cast<const unsigned char*>(a.GetString());
  const auto* y = reinterpret_cast<const unsigned char*>(b.GetString());
  const size_t nx = a.GetStringLength(), ny = b.GetStringLength();
  const size_t n = std::min(nx, ny);
  size_t i = 0;
  while (i < n && x[i] == y[i]) ++i;
  if (i == n) return nx < ny;
  const unsigned cx = x[i], cy = y[i];
  if (cx >= 0xF0 && (cy & 0xFE) == 0xEE) return true;
  if (cy >= 0xF0 && (cx & 0xFE) == 0xEE) return false;
  return cx < cy;
}

// One canonicalisation pass. `order_` is a stack of member pointers shared by every object on
// the current path, so sorting allocates only while the deepest/widest object grows it.
class Writer {
 public:
  explicit Writer(std::string& out, std::span<ValueSpan> spans = {}) : out_(out), spans_(spans) {
    order_.reserve(64);
  }

  void value(const json::Value& v) {
    if (spans_.empty()) return write(v);
    const size_t begin = out_.size();
    write(v);
    for (ValueSpan& span : spans_) {
      if (span.value == &v) span = {&v, begin, out_.size()};
    }
  }

 private:
  void write(const json::Value& v) {
    switch (v.GetType()) {
      case rapidjson::kNullType:
        out_.append("null", 4);
        return;
      case rapidjson::kFalseType:
        out_.append("false", 5);
        return;
      case rapidjson::kTrueType:
        out_.append("true", 4);
        return;
      case rapidjson::kStringType:
        append_string(v.GetString(), v.GetStringLength(), out_);
        return;
      case rapidjson::kNumberType:
        number(v);
        return;
      case rapidjson::kArrayType:
        array(v);
        return;
      case rapidjson::kObjectType:
        object(v);
        return;
    }
  }

  // Every JSON number is an IEEE double, as JSON.parse would make it: RapidJSON's exact
  // 64-bit integers are rounded to the nearest double before printing.
  void number(const json::Value& v) {
    if (v.IsDouble()) {
      format_number(v.GetDouble(), out_);
    } else if (v.IsInt64()) {
      const int64_t i = v.GetInt64();
      if (i >= -kMaxExactInteger && i <= kMaxExactInteger) {
        json::append_integer(out_, i);
      } else {
        format_number(static_cast<double>(i), out_);
      }
    } else {
      format_number(static_cast<double>(v.GetUint64()), out_);
    }
  }

  void array(const json::Value& v) {
    out_.push_back('[');
    bool first = true;
    for (const auto& element : v.GetArray()) {
      if (!first) out_.push_back(',');
      first = false;
      value(element);
    }
    out_.push_back(']');
  }

  void object(const json::Value& v) {
    const size_t base = order_.size();
    for (const auto& m : v.GetObject()) order_.push_back(&m);
    std::sort(order_.begin() + static_cast<ptrdiff_t>(base), order_.end(),
              [](const Member* a, const Member* b) { return utf16_less(a->name, b->name); });
    out_.push_back('{');
    // Indexes, not iterators: nested objects push onto order_ and may reallocate it.
    for (size_t k = base; k < order_.size(); ++k) {
      if (k != base) out_.push_back(',');
      const Member* m = order_[k];
      append_string(m->name.GetString(), m->name.GetStringLength(), out_);
      out_.push_back(':');
      value(m->value);
    }
    out_.push_back('}');
    order_.resize(base);
  }

  std::string& out_;
  std::span<ValueSpan> spans_;
  std::vector<const Member*> order_;
};

}  // namespace

void format_number(double x, std::string& out) {
  if (!std::isfinite(x)) {
    throw Error(ErrorCode::kBadRequest, "cannot canonicalize a non-finite number (NaN or Infinity)",
                "use finite numbers only; JSON has no NaN or Infinity");
  }
  if (x == 0) {  // +0 and -0 both print as "0"
    out.push_back('0');
    return;
  }
  if (std::fabs(x) <= static_cast<double>(kMaxExactInteger)) {
    const auto i = static_cast<int64_t>(x);
    if (static_cast<double>(i) == x) {
      json::append_integer(out, i);
      return;
    }
  }

  // Shortest round-trip digits, closest to x (what ECMA-262 Number::toString asks for), as
  // "d[.ddd]e±XX"; then lay them out per ECMA-262 §6.1.6.1.20.
  char sci[32];
  const auto r = std::to_chars(sci, sci + sizeof sci, std::fabs(x), std::chars_format::scientific);
  const char* e_pos = std::find(sci, r.ptr, 'e');
  char digits[20];
  int k = 0;  // number of significant digits
  for (const char* p = sci; p != e_pos; ++p) {
    if (*p != '.') digits[k++] = *p;
  }
  int exp10 = 0;
  const char* ep = e_pos + 1;
  const bool exp_negative = *ep == '-';
  if (*ep == '+' || *ep == '-') ++ep;
  std::from_chars(ep, r.ptr, exp10);
  if (exp_negative) exp10 = -exp10;
  const int n = exp10 + 1;  // the decimal point sits after the n-th digit

  char buf[40];
  char* p = buf;
  if (x < 0) *p++ = '-';
  if (k <= n && n <= 21) {  // integer: digits then n-k zeros
    p = std::copy(digits, digits + k, p);
    p = std::fill_n(p, n - k, '0');
  } else if (0 < n && n <= 21) {  // fraction with the point inside the digits
    p = std::copy(digits, digits + n, p);
    *p++ = '.';
    p = std::copy(digits + n, digits + k, p);
  } else if (-6 < n && n <= 0) {  // 0.000ddd
    *p++ = '0';
    *p++ = '.';
    p = std::fill_n(p, -n, '0');
    p = std::copy(digits, digits + k, p);
  } else {  // exponent form: d[.ddd]e±X
    *p++ = digits[0];
    if (k > 1) {
      *p++ = '.';
      p = std::copy(digits + 1, digits + k, p);
    }
    *p++ = 'e';
    *p++ = n - 1 < 0 ? '-' : '+';
    p = std::to_chars(p, buf + sizeof buf, std::abs(n - 1)).ptr;
  }
  out.append(buf, p);
}

void canonicalize(const json::Value& value, std::string& out) { Writer(out).value(value); }

void canonicalize(const json::Value& value, std::string& out, std::span<ValueSpan> spans) {
  Writer(out, spans).value(value);
}

std::string canonicalize(const json::Value& value) {
  std::string out;
  canonicalize(value, out);
  return out;
}

Result<std::string> canonicalize_text(std::string_view json_text) {
  const auto doc = json::parse_strict(json_text);
  if (!doc) return doc.error();
  std::string out;
  out.reserve(json_text.size());
  canonicalize(*doc, out);
  return out;
}

}  // namespace fleetmcp::jcs
