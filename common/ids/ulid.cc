#include "common/ids/ulid.h"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <mutex>

#include "common/base/error.h"

namespace fleetmcp {
namespace {

constexpr std::string_view kUpper = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";  // Crockford base32
constexpr std::string_view kLower = "0123456789abcdefghjkmnpqrstvwxyz";
constexpr int64_t kMaxTimeMs = (int64_t{1} << 48) - 1;

// 48-bit time and 80 random bits, kept as big-endian bytes so "increment" is a byte carry.
struct UlidValue {
  int64_t time_ms = 0;
  std::array<uint8_t, 10> random{};
};

// Returns false when the 80-bit value wrapped around (2^80 ULIDs in one millisecond).
bool increment(std::array<uint8_t, 10>& r) {
  for (size_t i = r.size(); i-- > 0;) {
    if (++r[i] != 0) return true;
  }
  return false;
}

// The random part of a new millisecond's first id. randombytes_buf is a getrandom system call
// each time (one per tools/call on the broker thread): draw 32 ids' worth at once, hand each out
// once and wipe it. Caller holds next_value's mutex.
void draw_random(std::array<uint8_t, 10>& out) {
  static std::array<uint8_t, 320> pool;
  static size_t used = pool.size();
  if (used == pool.size()) {
    randombytes_buf(pool.data(), pool.size());
    used = 0;
  }
  std::copy_n(pool.begin() + used, out.size(), out.begin());
  sodium_memzero(pool.data() + used, out.size());
  used += out.size();
}

// One process-wide sequence: every generator shares it, which makes ids monotonic across
// generators and threads, not just within one.
UlidValue next_value() {
  static std::mutex mu;
  static UlidValue last;
  static const int sodium_rc = sodium_init();  // once, thread-safe; idempotent in libsodium
  if (sodium_rc < 0) throw Error(ErrorCode::kInternal, "libsodium failed to initialise", "check /dev/urandom");

  const int64_t now = now_ms();
  std::lock_guard lock(mu);
  // Same millisecond (or the clock stepped back): keep the last time and increment, as the ULID
  // spec's monotonic mode does, so ids never go backwards. Overflow moves on to the next ms.
  if (now > last.time_ms || !increment(last.random)) {
    last.time_ms = now > last.time_ms ? now : last.time_ms + 1;
    draw_random(last.random);
  }
  if (last.time_ms > kMaxTimeMs) throw Error(ErrorCode::kInternal, "clock beyond the ULID range", "check the clock");
  return last;
}

std::string encode(const UlidValue& v, std::string_view alphabet) {
  std::string out(26, '0');
  // 10 characters of time (50 bits, top 2 always 0), then 16 characters of the 80 random bits.
  uint64_t t = static_cast<uint64_t>(v.time_ms);
  for (int i = 9; i >= 0; --i, t >>= 5) out[i] = alphabet[t & 31];
  unsigned acc = 0, bits = 0;
  size_t pos = 10;
  for (uint8_t byte : v.random) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out[pos++] = alphabet[(acc >> bits) & 31];
    }
  }
  return out;
}

// Which bytes an alphabet has: is_node_id runs on every ACL check of a $devices topic, where a
// search of the alphabet per character cost ~900 instructions (bench/profile.sh calls --callgrind).
using ByteSet = std::array<bool, 256>;
constexpr ByteSet byte_set(std::string_view alphabet) {
  ByteSet set{};
  for (const char c : alphabet) set[static_cast<unsigned char>(c)] = true;
  return set;
}
constexpr ByteSet kUpperSet = byte_set(kUpper), kLowerSet = byte_set(kLower);

bool all_in(std::string_view text, const ByteSet& alphabet) {
  if (text.size() != 26) return false;
  for (const char c : text) {
    if (!alphabet[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

}  // namespace

std::string UlidGenerator::next_upper() { return encode(next_value(), kUpper); }
std::string UlidGenerator::next_lower() { return encode(next_value(), kLower); }

std::string new_node_id() { return UlidGenerator().next_lower(); }
std::string new_msg_id() { return UlidGenerator().next_upper(); }

bool is_node_id(std::string_view text) { return all_in(text, kLowerSet); }
bool is_msg_id(std::string_view text) { return all_in(text, kUpperSet); }

int64_t ulid_time_ms(std::string_view ulid) {
  if (!is_node_id(ulid) && !is_msg_id(ulid)) return -1;
  const std::string_view alphabet = is_node_id(ulid) ? kLower : kUpper;
  int64_t t = 0;
  for (size_t i = 0; i < 10; ++i) t = (t << 5) | static_cast<int64_t>(alphabet.find(ulid[i]));
  return t > kMaxTimeMs ? -1 : t;  // first character above '7': more than 48 bits of time
}

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace fleetmcp
