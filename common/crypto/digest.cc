#include "common/crypto/digest.h"

#include <blake3.h>
#include <sodium.h>

#include <new>

namespace fleetmcp {

Digest32 blake3_256(std::span<const uint8_t> data) {
  Blake3Hasher hasher;
  hasher.update(data);
  return hasher.finalize();
}

std::string blake3_256_hex(std::string_view data) { return hex_lower(blake3_256(data)); }

// The header keeps blake3.h out of every includer, so the hasher lives in an opaque buffer. The
// C struct is plain data (copyable, no destructor), so a byte buffer holding it is enough.
Blake3Hasher::Blake3Hasher() {
  static_assert(sizeof(blake3_hasher) <= sizeof(state_), "grow Blake3Hasher::state_ in digest.h");
  static_assert(alignof(blake3_hasher) <= 8, "Blake3Hasher::state_ is only 8-byte aligned");
  blake3_hasher_init(new (state_) blake3_hasher);
}

void Blake3Hasher::update(std::span<const uint8_t> data) {
  blake3_hasher_update(std::launder(reinterpret_cast<blake3_hasher*>(state_)), data.data(), data.size());
}

Digest32 Blake3Hasher::finalize() const {
  Digest32 out;
  blake3_hasher_finalize(std::launder(reinterpret_cast<const blake3_hasher*>(state_)), out.data(), out.size());
  return out;
}

Digest32 sha256(std::span<const uint8_t> data) {
  static_assert(crypto_hash_sha256_BYTES == 32);
  Digest32 out;
  crypto_hash_sha256(out.data(), data.data(), data.size());
  return out;
}

std::string sha256_hex(std::string_view data) { return hex_lower(sha256(data)); }

}  // namespace fleetmcp
