#include "common/crypto/ed25519.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sodium.h>

#include <memory>

#include "common/base/error.h"
#include "common/base/file_text.h"

namespace fleetmcp {
namespace {

// libsodium wants sodium_init() before first use (it picks implementations and seeds the RNG).
// A function-local static makes that exactly once and thread-safe; sodium_init() itself is
// idempotent, so other translation units may do the same.
void ensure_sodium() {
  static const int rc = sodium_init();
  if (rc < 0) throw Error(ErrorCode::kInternal, "libsodium failed to initialise", "check the system's random source");
}

struct BioFree { void operator()(BIO* b) const { BIO_free(b); } };
struct PkeyFree { void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); } };
using BioPtr = std::unique_ptr<BIO, BioFree>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// Never let OpenSSL prompt on the terminal for a passphrase: our keys are unencrypted, an
// encrypted one is simply "not a key we can use".
int no_passphrase(char*, int, int, void*) { return 0; }

// Null only when out of memory.
BioPtr memory_bio(std::string_view text) { return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size()))); }

const ErrorEnvelope kOutOfMemory(ErrorCode::kInternal, "out of memory", "retry");

std::string bio_contents(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

ErrorEnvelope bad_key(std::string_view origin, std::string_view what) {
  ERR_clear_error();  // leave no stale OpenSSL errors behind for the next caller
  return ErrorEnvelope(ErrorCode::kInternal, std::string(origin) + ": " + std::string(what),
              "use a PEM Ed25519 key as written by fleetctl pki (openssl genpkey -algorithm ed25519)");
}

std::string write_pem(EVP_PKEY* key, bool private_part) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  const int ok = bio && (private_part ? PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)
                                      : PEM_write_bio_PUBKEY(bio.get(), key));
  if (!ok) throw Error(ErrorCode::kInternal, "cannot encode an Ed25519 key as PEM", "report this as a bug");
  return bio_contents(bio.get());
}

}  // namespace

Ed25519PrivateKey Ed25519PrivateKey::generate() {
  ensure_sodium();
  Ed25519PrivateKey key;
  crypto_sign_keypair(key.public_key_.data(), key.secret_.data());
  return key;
}

Ed25519PrivateKey Ed25519PrivateKey::from_seed(std::span<const uint8_t, 32> seed) {
  ensure_sodium();
  Ed25519PrivateKey key;
  crypto_sign_seed_keypair(key.public_key_.data(), key.secret_.data(), seed.data());
  return key;
}

Result<Ed25519PrivateKey> Ed25519PrivateKey::from_pem(std::string_view pem, std::string_view origin) {
  auto bio = memory_bio(pem);
  if (!bio) return kOutOfMemory;
  PkeyPtr pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  if (!pkey) return bad_key(origin, "not a PEM private key");
  if (EVP_PKEY_get_id(pkey.get()) != EVP_PKEY_ED25519) return bad_key(origin, "not an Ed25519 key");
  std::array<uint8_t, 32> seed{};
  size_t len = seed.size();
  if (EVP_PKEY_get_raw_private_key(pkey.get(), seed.data(), &len) != 1 || len != seed.size()) {
    return bad_key(origin, "cannot extract the Ed25519 seed");
  }
  auto key = from_seed(seed);
  sodium_memzero(seed.data(), seed.size());
  return key;
}

Result<Ed25519PrivateKey> Ed25519PrivateKey::load_pem_file(const std::string& path) {
  auto pem = read_file(path, ErrorCode::kInternal, "key file");
  if (!pem) return pem.error();
  auto key = from_pem(*pem, path);
  sodium_memzero(pem->data(), pem->size());
  return key;
}

std::string Ed25519PrivateKey::to_pem() const {
  // libsodium's secret key is seed || public key; OpenSSL wants the 32-byte seed.
  PkeyPtr pkey(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, secret_.data(), 32));
  if (!pkey) throw Error(ErrorCode::kInternal, "cannot build an OpenSSL Ed25519 key", "report this as a bug");
  return write_pem(pkey.get(), true);
}

Ed25519Signature Ed25519PrivateKey::sign(std::span<const uint8_t> message) const {
  Ed25519Signature sig{};
  crypto_sign_detached(sig.data(), nullptr, message.data(), message.size(), secret_.data());
  return sig;
}

Ed25519Signature Ed25519PrivateKey::sign(std::string_view message) const {
  return sign(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(message.data()), message.size()));
}

Ed25519PrivateKey::~Ed25519PrivateKey() { sodium_memzero(secret_.data(), secret_.size()); }

Ed25519PrivateKey::Ed25519PrivateKey(const Ed25519PrivateKey& other)
    : secret_(other.secret_), public_key_(other.public_key_) {}

Ed25519PrivateKey& Ed25519PrivateKey::operator=(const Ed25519PrivateKey& other) {
  secret_ = other.secret_;
  public_key_ = other.public_key_;
  return *this;
}

bool ed25519_verify(const Ed25519PublicKey& key, std::span<const uint8_t> message,
                    std::span<const uint8_t> signature) {
  ensure_sodium();
  if (signature.size() != crypto_sign_BYTES) return false;
  return crypto_sign_verify_detached(signature.data(), message.data(), message.size(), key.data()) == 0;
}

bool ed25519_verify(const Ed25519PublicKey& key, std::string_view message, std::span<const uint8_t> signature) {
  return ed25519_verify(key, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(message.data()), message.size()),
                        signature);
}

Result<Ed25519PublicKey> ed25519_public_key_from_pem(std::string_view pem, std::string_view origin) {
  auto bio = memory_bio(pem);
  if (!bio) return kOutOfMemory;
  PkeyPtr pkey(PEM_read_bio_PUBKEY(bio.get(), nullptr, no_passphrase, nullptr));
  if (!pkey) return bad_key(origin, "not a PEM public key");
  if (EVP_PKEY_get_id(pkey.get()) != EVP_PKEY_ED25519) return bad_key(origin, "not an Ed25519 public key");
  Ed25519PublicKey key{};
  size_t len = key.size();
  if (EVP_PKEY_get_raw_public_key(pkey.get(), key.data(), &len) != 1 || len != key.size()) {
    return bad_key(origin, "cannot extract the Ed25519 public key");
  }
  return key;
}

std::string ed25519_public_key_to_pem(const Ed25519PublicKey& key) {
  PkeyPtr pkey(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, key.data(), key.size()));
  if (!pkey) throw Error(ErrorCode::kInternal, "cannot build an OpenSSL Ed25519 public key", "report this as a bug");
  return write_pem(pkey.get(), false);
}

}  // namespace fleetmcp
