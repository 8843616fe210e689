// Ed25519 signatures (libsodium). Keys on disk are PEM (PKCS#8 / SPKI, as OpenSSL writes them for
// certificates); in memory they are raw 32-byte seeds and public keys.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/base/result.h"

namespace fleetmcp {

using Ed25519PublicKey = std::array<uint8_t, 32>;
using Ed25519Signature = std::array<uint8_t, 64>;

class Ed25519PrivateKey {
 public:
  static Ed25519PrivateKey generate();
  static Ed25519PrivateKey from_seed(std::span<const uint8_t, 32> seed);
  // PKCS#8 "PRIVATE KEY" PEM. E_INTERNAL naming `origin` when it is not an Ed25519 key.
  static Result<Ed25519PrivateKey> from_pem(std::string_view pem, std::string_view origin = "key");
  // from_pem of the file's bytes (wiped after use); E_INTERNAL naming the path when unreadable.
  static Result<Ed25519PrivateKey> load_pem_file(const std::string& path);

  // Throws only on a bug (OpenSSL cannot encode a key it was given).
  std::string to_pem() const;
  const Ed25519PublicKey& public_key() const { return public_key_; }
  Ed25519Signature sign(std::span<const uint8_t> message) const;
  Ed25519Signature sign(std::string_view message) const;

  ~Ed25519PrivateKey();
  Ed25519PrivateKey(const Ed25519PrivateKey&);
  Ed25519PrivateKey& operator=(const Ed25519PrivateKey&);

 private:
  Ed25519PrivateKey() = default;
  std::array<uint8_t, 64> secret_{};  // libsodium's seed || public key form; wiped on destruction
  Ed25519PublicKey public_key_{};
};

bool ed25519_verify(const Ed25519PublicKey& key, std::span<const uint8_t> message,
                    std::span<const uint8_t> signature);
bool ed25519_verify(const Ed25519PublicKey& key, std::string_view message,
                    std::span<const uint8_t> signature);

// SPKI "PUBLIC KEY" PEM <-> raw key. E_INTERNAL naming `origin` on bad input; to_pem throws only
// on a bug.
Result<Ed25519PublicKey> ed25519_public_key_from_pem(std::string_view pem, std::string_view origin = "key");
std::string ed25519_public_key_to_pem(const Ed25519PublicKey& key);

}  // namespace fleetmcp
