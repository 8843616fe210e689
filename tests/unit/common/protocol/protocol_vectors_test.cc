// The committed test vectors of docs/vectors/ (docs/protocol.md §5, §6) against the library: each
// valid manifest re-signs to exactly its committed bytes (Ed25519 is deterministic), its P0 / P1
// canonical forms, payload_hash, sig and etag match, and the verifier accepts it; each invalid
// manifest is refused with the code its row in invalid/cases.json names. If the signing procedure
// or a check drifts, these fail, and the vectors (which third parties test against) cannot rot.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "common/crypto/digest.h"
#include "common/crypto/ed25519.h"
#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/crypto/jcs.h"
#include "common/base/json.h"
#include "common/protocol/manifest.h"
#include "common/registry/schema_registry.h"
#include "common/crypto/x509.h"

namespace fleetmcp {
namespace {

const std::string kVectors = std::string(FLEETMCP_SOURCE_DIR) + "/docs/vectors/";

std::string vector_file(const std::string& name) { return read_file(kVectors + name).value(); }

std::string string_at(const json::Value& object, const char* key) {
  return std::string(json::get_string(object, key).value_or(""));
}

ManifestVerifier verifier_with(RevocationList revoked) {
  return ManifestVerifier(SchemaRegistry::load(std::string(FLEETMCP_SOURCE_DIR) + "/schemas"),
                          Certificate::load_pem_file(kVectors + "ca.crt").value(),
                          std::make_shared<const RevocationList>(std::move(revoked)));
}

// JCS of the signed manifest with some node_attestation fields blanked (the P0 / P1 of §5).
std::string blanked(const std::string& signed_manifest, bool blank_hash) {
  json::Document doc = json::parse_strict(signed_manifest).value();
  auto& attestation = doc["node_attestation"];
  attestation["sig"].SetString("");
  if (blank_hash) attestation["payload_hash"].SetString("");
  return jcs::canonicalize(doc);
}

class ValidVector : public ::testing::TestWithParam<const char*> {};

TEST_P(ValidVector, ResignsToTheSameBytesAndVerifies) {
  const std::string name = std::string("valid/") + GetParam();
  const std::string published = vector_file(name + ".signed.json");
  const json::Document expected = json::parse_strict(vector_file(name + ".expected.json")).value();

  json::Document unsigned_doc = json::parse_strict(vector_file(name + ".unsigned.json")).value();
  auto& attestation = unsigned_doc["node_attestation"];
  attestation["kid"].SetString(string_at(expected, "kid").c_str(), unsigned_doc.GetAllocator());
  const auto key = Ed25519PrivateKey::load_pem_file(kVectors + "node.key").value();
  EXPECT_EQ(sign_manifest(unsigned_doc, key).value(), published) << "re-signing must give the committed bytes";

  EXPECT_EQ(blanked(published, true), vector_file(name + ".p0.jcs"));
  EXPECT_EQ(blanked(published, false), vector_file(name + ".p1.jcs"));
  EXPECT_EQ(blake3_256_hex(vector_file(name + ".p0.jcs")), string_at(expected, "payload_hash"));
  EXPECT_EQ(blake3_256_hex(published), string_at(expected, "etag"));

  const auto cert = Certificate::load_pem_file(kVectors + "node.crt").value();
  EXPECT_EQ(cert.thumbprint(), string_at(expected, "kid"));
  AnnounceContext ctx;
  ctx.now_ms = *json::get_int64(expected, "now_ms");
  ctx.certificate = &cert;
  ctx.topic_node_id = cert.subject_cn();
  ctx.publisher_identity = cert.subject_cn();
  const ParsedManifest accepted = verifier_with({}).verify(published, ctx).value();
  EXPECT_EQ(accepted.etag, string_at(expected, "etag"));
  EXPECT_EQ(accepted.sig, string_at(expected, "sig"));
  EXPECT_EQ(accepted.payload_hash, string_at(expected, "payload_hash"));
}

INSTANTIATE_TEST_SUITE_P(Vectors, ValidVector, ::testing::Values("mock", "gpio"));

TEST(InvalidVectors, EachIsRefusedWithItsCode) {
  const json::Document cases = json::parse_strict(vector_file("invalid/cases.json")).value();
  const auto cert = Certificate::load_pem_file(kVectors + "node.crt").value();
  ASSERT_GE(cases["cases"].Size(), 20u);
  for (const auto& row : cases["cases"].GetArray()) {
    const std::string name = string_at(row, "name");
    RevocationList revoked;
    if (row.HasMember("revoked")) {
      for (const auto& id : row["revoked"].GetArray()) revoked.add(id.GetString());
    }
    // The context's string_views point into `row`, which outlives the verify() call.
    AnnounceContext ctx;
    ctx.now_ms = *json::get_int64(cases, "now_ms");
    ctx.certificate = &cert;
    ctx.topic_node_id = json::get_string(row, "topic_node").value_or("");
    ctx.publisher_identity = json::get_string(row, "publisher").value_or("");
    ctx.last_issued_at_ms = json::get_int64(row, "last_issued_ms");
    if (auto hw = json::get_string(row, "pinned_hw")) ctx.pinned_hw_fingerprint = std::string(*hw);

    const std::string payload = vector_file("invalid/" + name + ".json");
    std::optional<std::string> code;
    if (const auto verified = verifier_with(std::move(revoked)).verify(payload, ctx); !verified) {
      code = std::string(error_code_name(verified.error().code));
    }
    EXPECT_EQ(code.value_or("accepted"), string_at(row, "code")) << "invalid/" << name << ".json";
  }
}

}  // namespace
}  // namespace fleetmcp
