#include "common/crypto/ed25519.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/base/bytes.h"
#include "common/base/error.h"

namespace fleetmcp {
namespace {

// RFC 8032 §7.1: TEST 1, TEST 2, TEST 3 and TEST SHA(abc) (message = SHA-512("abc")).
struct Rfc8032Vector {
  const char* name;
  const char* seed;
  const char* public_key;
  const char* message;
  const char* signature;
};
constexpr Rfc8032Vector kVectors[] = {
    {"TEST 1", "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
    {"TEST 2", "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
    {"TEST 3", "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
    {"TEST SHA(abc)", "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
     "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"},
};

Bytes unhex(const char* s) { return *hex_decode(s); }

Ed25519PrivateKey key_of(const Rfc8032Vector& v) {
  const Bytes seed = unhex(v.seed);
  return Ed25519PrivateKey::from_seed(std::span<const uint8_t, 32>(seed.data(), 32));
}

TEST(Ed25519, Rfc8032SignAndVerify) {
  for (const auto& v : kVectors) {
    const auto key = key_of(v);
    const Bytes message = unhex(v.message);
    EXPECT_EQ(hex_lower(key.public_key()), v.public_key) << v.name;
    const auto sig = key.sign(message);
    EXPECT_EQ(hex_lower(sig), v.signature) << v.name;
    EXPECT_TRUE(ed25519_verify(key.public_key(), message, sig)) << v.name;
  }
}

TEST(Ed25519, TamperedMessageOrSignatureFails) {
  for (const auto& v : kVectors) {
    const auto key = key_of(v);
    const Bytes message = unhex(v.message);
    const Bytes sig = unhex(v.signature);
    Bytes longer = message;
    longer.push_back(0);
    EXPECT_FALSE(ed25519_verify(key.public_key(), longer, sig)) << v.name;
    if (!message.empty()) {
      Bytes flipped = message;
      flipped[0] ^= 0x01;
      EXPECT_FALSE(ed25519_verify(key.public_key(), flipped, sig)) << v.name;
    }
    for (size_t byte : {size_t{0}, size_t{31}, size_t{32}, size_t{63}}) {
      Bytes bad = sig;
      bad[byte] ^= 0x80;
      EXPECT_FALSE(ed25519_verify(key.public_key(), message, bad)) << v.name << " byte " << byte;
    }
    EXPECT_FALSE(ed25519_verify(key.public_key(), message, std::span(sig).first(63))) << "short signature";
    EXPECT_FALSE(ed25519_verify(key_of(kVectors[(&v - kVectors + 1) % 4]).public_key(), message, sig)) << "other key";
  }
}

TEST(Ed25519, StringOverloadsAgree) {
  const auto key = Ed25519PrivateKey::generate();
  const auto sig = key.sign(std::string_view("payload"));
  EXPECT_EQ(sig, key.sign(as_bytes("payload")));
  EXPECT_TRUE(ed25519_verify(key.public_key(), std::string_view("payload"), sig));
  EXPECT_FALSE(ed25519_verify(key.public_key(), std::string_view("payloaD"), sig));
}

TEST(Ed25519, GeneratedKeysDiffer) {
  EXPECT_NE(Ed25519PrivateKey::generate().public_key(), Ed25519PrivateKey::generate().public_key());
}

// What OpenSSL writes for the RFC 8032 TEST 1 key: PKCS#8 and SPKI, byte for byte.
constexpr const char* kTest1Pkcs8 =
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n-----END PRIVATE KEY-----\n";
constexpr const char* kTest1Spki =
    "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n";

TEST(Ed25519Pem, MatchesOpenSslEncodingBothWays) {
  const auto key = key_of(kVectors[0]);
  EXPECT_EQ(key.to_pem(), kTest1Pkcs8);
  EXPECT_EQ(ed25519_public_key_to_pem(key.public_key()), kTest1Spki);
  EXPECT_EQ(Ed25519PrivateKey::from_pem(kTest1Pkcs8)->public_key(), key.public_key());
  EXPECT_EQ(ed25519_public_key_from_pem(kTest1Spki).value(), key.public_key());
}

TEST(Ed25519Pem, LoadsAFile) {
  const auto path = std::filesystem::temp_directory_path() / ("ed25519_test_" + std::to_string(::getpid()) + ".key");
  std::ofstream(path) << kTest1Pkcs8;
  EXPECT_EQ(hex_lower(Ed25519PrivateKey::load_pem_file(path.string())->public_key()), kVectors[0].public_key);
  std::filesystem::remove(path);
  const auto missing = Ed25519PrivateKey::load_pem_file(path.string());
  ASSERT_FALSE(missing.ok()) << "missing file accepted";
  EXPECT_EQ(missing.error().code, ErrorCode::kInternal);
  EXPECT_NE(missing.error().message.find(path.string()), std::string::npos) << missing.error().message;
}

std::string x25519_private_pem() {
  const uint8_t raw[32] = {1, 2, 3};
  EVP_PKEY* pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, raw, sizeof raw);
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, pkey, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(n));
  BIO_free(bio);
  EVP_PKEY_free(pkey);
  return pem;
}

TEST(Ed25519Pem, RejectsWhatIsNotAnEd25519KeyNamingTheOrigin) {
  const std::string not_ed25519 = x25519_private_pem();
  ASSERT_NE(not_ed25519.find("PRIVATE KEY"), std::string::npos);
  for (const std::string& pem : {std::string("garbage"), std::string(kTest1Spki), not_ed25519}) {
    const auto key = Ed25519PrivateKey::from_pem(pem, "node.key");
    ASSERT_FALSE(key.ok()) << "accepted " << pem;
    EXPECT_EQ(key.error().code, ErrorCode::kInternal);
    EXPECT_EQ(key.error().message.rfind("node.key: ", 0), 0u) << key.error().message;
  }
  for (const char* pem : {kTest1Pkcs8, ""}) {
    const auto key = ed25519_public_key_from_pem(pem, "issuer.pub");
    ASSERT_FALSE(key.ok()) << "accepted " << pem;
    EXPECT_EQ(key.error().message.rfind("issuer.pub: ", 0), 0u) << key.error().message;
  }
}

}  // namespace
}  // namespace fleetmcp
