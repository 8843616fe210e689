#include "common/base/bytes.h"

#include <gtest/gtest.h>

namespace fleetmcp {
namespace {

Bytes b(std::string_view s) { return Bytes(s.begin(), s.end()); }

TEST(Hex, EncodesLowercase) {
  EXPECT_EQ(hex_lower(Bytes{0x00, 0xab, 0xff, 0x10}), "00abff10");
  EXPECT_EQ(hex_lower(Bytes{}), "");
}

TEST(Hex, DecodesEitherCase) {
  EXPECT_EQ(hex_decode("00ABff10"), (Bytes{0x00, 0xab, 0xff, 0x10}));
  EXPECT_EQ(hex_decode(""), Bytes{});
}

TEST(Hex, RejectsAnythingButEvenHexDigits) {
  for (std::string_view bad : {"0", "abc", "zz", "0x00", " 00", "00 ", "00\n", "0g", "00-11"}) {
    EXPECT_FALSE(hex_decode(bad).has_value()) << bad;
  }
}

// RFC 4648 §10 test vectors, without the '=' padding.
TEST(Base64url, Rfc4648Vectors) {
  const std::pair<std::string_view, std::string_view> vectors[] = {
      {"", ""}, {"f", "Zg"}, {"fo", "Zm8"}, {"foo", "Zm9v"}, {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64url_encode(as_bytes(plain)), encoded);
    EXPECT_EQ(base64url_decode(encoded), b(plain)) << encoded;
  }
}

TEST(Base64url, UsesTheUrlAlphabet) {
  EXPECT_EQ(base64url_encode(Bytes{0xfb, 0xff, 0xbf}), "-_-_");
  EXPECT_EQ(base64url_decode("-_-_"), (Bytes{0xfb, 0xff, 0xbf}));
}

TEST(Base64url, RejectsNonCanonicalInput) {
  // Standard alphabet, padding, whitespace, a lone 6-bit tail, and tails whose unused bits are
  // set ("Zh" and "Zm9" would decode to "f" and "fo" if the decoder were lax): each is a second
  // spelling of some bytes, which a signature or token must never have.
  for (std::string_view bad : {"+/+/", "Zg==", "Zg=", "Zm9v\n", " Zm9v", "Zm 9v", "Z", "Zm9vY", "Zh", "Zm9", "Zm9vYmF"}) {
    EXPECT_FALSE(base64url_decode(bad).has_value()) << bad;
  }
  EXPECT_EQ(base64url_decode("Zm8"), b("fo"));
  EXPECT_EQ(base64url_decode("Zm9vYmE"), b("fooba"));
}

TEST(Base64url, RoundTripsEveryLengthUpTo100) {
  Bytes data;
  for (int n = 0; n <= 100; ++n) {
    EXPECT_EQ(base64url_decode(base64url_encode(data)), data) << n;
    EXPECT_EQ(base64url_encode(data).find('='), std::string::npos);
    data.push_back(static_cast<uint8_t>(n * 37 + 11));
  }
}

}  // namespace
}  // namespace fleetmcp
