// The two hash functions fleetmcp uses: BLAKE3-256 (manifests, etags, hw_fingerprint; the
// official C implementation) and SHA-256 (certificate thumbprints, schema hashes; libsodium).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/base/bytes.h"

namespace fleetmcp {

using Digest32 = std::array<uint8_t, 32>;

Digest32 blake3_256(std::span<const uint8_t> data);
inline Digest32 blake3_256(std::string_view data) { return blake3_256(as_bytes(data)); }
std::string blake3_256_hex(std::string_view data);

// Incremental BLAKE3 for streams (fleetctl b3 on stdin).
class Blake3Hasher {
 public:
  Blake3Hasher();
  void update(std::span<const uint8_t> data);
  Digest32 finalize() const;

 private:
  alignas(8) unsigned char state_[1920];  // >= sizeof(blake3_hasher), checked in digest.cc
};

Digest32 sha256(std::span<const uint8_t> data);
inline Digest32 sha256(std::string_view data) { return sha256(as_bytes(data)); }
std::string sha256_hex(std::string_view data);

}  // namespace fleetmcp
