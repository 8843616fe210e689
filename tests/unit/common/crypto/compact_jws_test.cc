// The one compact-JWS reader both token verifiers call (compact_jws.h): the split, one part
// decoded as a strict JSON object, and the unchecked iss that picks the verifier.
#include "common/crypto/compact_jws.h"

#include <gtest/gtest.h>

#include "common/base/bytes.h"

namespace fleetmcp::jws {
namespace {

std::string part(std::string_view json) { return base64url_encode(as_bytes(json)); }

std::string token(std::string_view payload) { return part(R"({"alg":"EdDSA"})") + "." + part(payload) + ".c2ln"; }

TEST(CompactJwsTest, SplitsExactlyThreeParts) {
  const auto parts = split("aGVhZA.cGF5bG9hZA.c2ln");
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->header, "aGVhZA");
  EXPECT_EQ(parts->payload, "cGF5bG9hZA");
  EXPECT_EQ(parts->signature, "c2ln");
  EXPECT_EQ(parts->signing_input, "aGVhZA.cGF5bG9hZA");
  EXPECT_TRUE(split("a.b."));  // an empty signature is still three parts (alg none looks so)
  for (std::string_view bad : {"", "no-dots", "a.b", "a.b.c.d", "...."}) EXPECT_FALSE(split(bad)) << bad;
}

TEST(CompactJwsTest, DecodesAPartAsAStrictJsonObject) {
  const json::ParseLimits limits{.max_bytes = 1024, .max_depth = 4};
  const auto doc = decode_object(part(R"({"sub":"alice"})"), limits);
  ASSERT_TRUE(doc);
  EXPECT_EQ(json::get_string(*doc, "sub"), "alice");
  EXPECT_EQ(decode_object("not base64url!", limits).error(), SegmentFault::kNotBase64url);
  EXPECT_EQ(decode_object(part(R"({"a":1,"a":2})"), limits).error(), SegmentFault::kNotJson);  // strict: no duplicates
  EXPECT_EQ(decode_object(part(R"({"a":[[[[[1]]]]]})"), limits).error(), SegmentFault::kNotJson);  // too deep
  EXPECT_EQ(decode_object(part(std::string(2000, ' ') + "{}"), limits).error(), SegmentFault::kNotJson);  // too long
  EXPECT_EQ(decode_object(part(R"(["an array"])"), limits).error(), SegmentFault::kNotObject);
}

TEST(UnverifiedIssuerTest, ReadsOnlyAStringIss) {
  EXPECT_EQ(unverified_issuer(token(R"({"iss":"https://a.example"})")), "https://a.example");
  EXPECT_FALSE(unverified_issuer(token(R"({"sub":"fleetctl tokens have no iss"})")));
  EXPECT_FALSE(unverified_issuer(token(R"({"iss":7})")));
  EXPECT_FALSE(unverified_issuer("no-dots"));
  EXPECT_FALSE(unverified_issuer(token(R"({"iss":"https://a.example","pad":")" + std::string(kMaxTokenBytes, 'x') + "\"}")));
}

}  // namespace
}  // namespace fleetmcp::jws
