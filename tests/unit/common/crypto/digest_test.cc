#include "common/crypto/digest.h"

#include <gtest/gtest.h>

#include <vector>

namespace fleetmcp {
namespace {

// The official BLAKE3 test vectors (BLAKE3-team/BLAKE3 test_vectors/test_vectors.json; Debian's
// librust-blake3-dev does not ship the file, so the default-length hashes are copied here and were
// checked against the independent Rust b3sum). Input: `input_len` bytes of i % 251.
struct Vector {
  size_t input_len;
  const char* hash;  // the first 32 bytes of the extended output = the default-length hash
};
constexpr Vector kVectors[] = {
    {0, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
    {1, "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213"},
    {1023, "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11"},
    {1024, "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7"},
    {1025, "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444"},
    {2048, "e776b6028c7cd22a4d0ba182a8bf62205d2ef576467e838ed6f2529b85fba24a"},
    {2049, "5f4d72f40d7a5f82b15ca2b2e44b1de3c2ef86c426c95c1af0b6879522563030"},
    {3072, "b98cb0ff3623be03326b373de6b9095218513e64f1ee2edd2525c7ad1e5cffd2"},
    {3073, "7124b49501012f81cc7f11ca069ec9226cecb8a2c850cfe644e327d22d3e1cd3"},
    {4096, "015094013f57a5277b59d8475c0501042c0b642e531b0a1c8f58d2163229e969"},
    {4097, "9b4052b38f1c5fc8b1f9ff7ac7b27cd242487b3d890d15c96a1c25b8aa0fb995"},
    {5120, "9cadc15fed8b5d854562b26a9536d9707cadeda9b143978f319ab34230535833"},
    {5121, "628bd2cb2004694adaab7bbd778a25df25c47b9d4155a55f8fbd79f2fe154cff"},
    {6144, "3e2e5b74e048f3add6d21faab3f83aa44d3b2278afb83b80b3c35164ebeca205"},
    {6145, "f1323a8631446cc50536a9f705ee5cb619424d46887f3c376c695b70e0f0507f"},
    {7168, "61da957ec2499a95d6b8023e2b0e604ec7f6b50e80a9678b89d2628e99ada77a"},
    {7169, "a003fc7a51754a9b3c7fae0367ab3d782dccf28855a03d435f8cfe74605e7817"},
    {8192, "aae792484c8efe4f19e2ca7d371d8c467ffb10748d8a5a1ae579948f718a2a63"},
    {8193, "bab6c09cb8ce8cf459261398d2e7aef35700bf488116ceb94a36d0f5f1b7bc3b"},
    {16384, "f875d6646de28985646f34ee13be9a576fd515f76b5b0a26bb324735041ddde4"},
    {31744, "62b6960e1a44bcc1eb1a611a8d6235b6b4b78f32e7abc4fb4c6cdcce94895c47"},
    {102400, "bc3e3d41a1146b069abffad3c0d44860cf664390afce4d9661f7902e7943e085"},
};

Bytes vector_input(size_t n) {
  Bytes data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<uint8_t>(i % 251);
  return data;
}

TEST(Blake3, OfficialTestVectors) {
  for (const auto& v : kVectors) {
    EXPECT_EQ(hex_lower(blake3_256(vector_input(v.input_len))), v.hash) << "input_len " << v.input_len;
  }
}

TEST(Blake3, StreamingEqualsOneShotWhateverTheChunking) {
  const Bytes data = vector_input(102400);
  for (size_t chunk : {1u, 7u, 64u, 1000u, 1024u, 1025u, 65536u}) {
    Blake3Hasher hasher;
    for (size_t off = 0; off < data.size(); off += chunk) {
      hasher.update(std::span(data).subspan(off, std::min(chunk, data.size() - off)));
    }
    EXPECT_EQ(hex_lower(hasher.finalize()), kVectors[std::size(kVectors) - 1].hash) << "chunk " << chunk;
  }
}

TEST(Blake3, FinalizeDoesNotConsumeAndCopiesAreIndependent) {
  Blake3Hasher a;
  a.update(as_bytes("hello"));
  Blake3Hasher b = a;
  EXPECT_EQ(a.finalize(), a.finalize());
  b.update(as_bytes(" world"));
  EXPECT_EQ(a.finalize(), blake3_256("hello"));
  EXPECT_EQ(b.finalize(), blake3_256("hello world"));
}

TEST(Blake3, HexHelper) {
  EXPECT_EQ(blake3_256_hex(""), kVectors[0].hash);
  // b3sum of "hello" (no newline)
  EXPECT_EQ(blake3_256_hex("hello"), "ea8f163db38682925e4491c5e58d4bb3506ef8c14eb78a86e908c5624a67200f");
}

// FIPS 180-2 appendix B examples.
TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex_lower(sha256(as_bytes("abc"))), sha256_hex("abc"));
}

}  // namespace
}  // namespace fleetmcp
