// Announce verification cost (docs/protocol.md §10: >= 12 k full verifications/s per core, known-etag
// re-announce >= 200 k/s): ManifestVerifier::verify of a signed 16-capability manifest against
// libsodium's raw crypto_sign_verify_detached of the same signed bytes, measured in the same run,
// then each stage on its own. Keys and certificates are made in memory at start (tests/support/test_pki.h).
#include <sodium.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>

#include "bench/harness.h"
#include "common/base/bytes.h"
#include "common/crypto/digest.h"
#include "common/crypto/ed25519.h"
#include "common/crypto/jcs.h"
#include "common/base/json.h"
#include "common/protocol/manifest.h"
#include "common/registry/schema_registry.h"
#include "common/ids/ulid.h"
#include "common/crypto/x509.h"
#include "tests/support/test_pki.h"

namespace {

using namespace fleetmcp;

ManifestContent sixteen_capabilities(const std::string& node_id, const std::string& kid, int64_t now) {
  ManifestContent c;
  c.node_id = node_id;
  c.hw_sources = {{"machine_id", "0123456789abcdef0123456789abcdef"}, {"cpu_serial", "10000000deadbeef"}};
  c.kid = kid;
  c.issued_at_ms = now - 1000;
  c.expires_at_ms = now + 3'600'000;
  for (int i = 0; i < 8; ++i) {
    Capability echo;
    echo.cap_id = "echo" + std::to_string(i);
    echo.kind = "system.echo";
    echo.schema_ref = "mcp://schemas/system.echo.invoke.input@1.0.0";
    echo.verbs = {"invoke"};
    echo.constraints = {.rate_limit_rps = 10, .max_concurrency = 4, .deadline_ms_default = 2000};
    Capability metrics;
    metrics.cap_id = "metrics" + std::to_string(i);
    metrics.kind = "system.metrics";
    metrics.schema_ref = "mcp://schemas/system.metrics@1.0.0";
    metrics.verbs = {"snapshot", "subscribe"};
    metrics.constraints = {.rate_limit_rps = 5.5, .max_concurrency = 2, .deadline_ms_default = 2000};
    c.capabilities.push_back(echo);
    c.capabilities.push_back(metrics);
  }
  return c;
}

struct DigestHash {
  size_t operator()(const Digest32& d) const {
    size_t h;
    std::memcpy(&h, d.data(), sizeof h);
    return h;
  }
};

}  // namespace

int main(int argc, char** argv) {
  bench::Harness h("manifest_verify", argc, argv);
  if (sodium_init() < 0) return 3;

  // A throwaway fleet: CA and one enrolled node.
  const fleetmcp::testing::TestPki pki;
  const auto node = pki.enroll("bench");
  const std::string& node_id = node->node_id;
  const Certificate& ca = pki.ca();
  const Certificate& cert = node->certificate;
  const Ed25519PrivateKey& key = node->signing_key;

  auto schemas = SchemaRegistry::load(SchemaRegistry::default_dir());
  const int64_t now = now_ms();
  json::Document doc = build_manifest(sixteen_capabilities(node_id, cert.thumbprint(), now));
  const std::string payload = sign_manifest(doc, key).value();

  const ManifestVerifier verifier(schemas, ca, std::make_shared<RevocationList>());
  AnnounceContext ctx;
  ctx.now_ms = now;
  ctx.topic_node_id = node_id;
  ctx.publisher_identity = node_id;
  ctx.certificate = &cert;
  const ParsedManifest parsed = verifier.verify(payload, ctx).value();  // throws if the setup is wrong

  // The exact bytes that were signed (P1) and the signature, for the raw baselines.
  json::Document p1_doc = json::parse_strict(payload).value();
  p1_doc["node_attestation"]["sig"].SetString("");
  const std::string p1 = jcs::canonicalize(p1_doc);
  const Bytes sig = *base64url_decode(parsed.sig);
  const Ed25519PublicKey pk = cert.ed25519_public_key().value();
  if (crypto_sign_verify_detached(sig.data(), reinterpret_cast<const unsigned char*>(p1.data()), p1.size(), pk.data()) != 0) {
    std::fputs("setup error: P1 does not verify\n", stderr);
    return 3;
  }
  if (!h.options().json) {
    std::fprintf(stderr,
                 "docs/protocol.md section 5 announce verification\n"
                 "manifest: %zu bytes, %zu capabilities; signed payload P1: %zu bytes\n",
                 payload.size(),
                 parsed.capabilities.size(), p1.size());
  }

  h.run("raw crypto_sign_verify_detached", [&] {
    bench::keep(crypto_sign_verify_detached(sig.data(), reinterpret_cast<const unsigned char*>(p1.data()), p1.size(),
                                            pk.data()));
  });
  h.run("full ManifestVerifier::verify", [&] { bench::keep(verifier.verify(payload, ctx)->etag.size()); },
        {.baseline = "raw crypto_sign_verify_detached"});

  // The stages, each on its own (ratios against the raw signature check for scale).
  const std::string baseline = "raw crypto_sign_verify_detached";
  h.run("stage: parse_strict", [&] { bench::keep(json::parse_strict(payload).value().MemberCount()); }, {.baseline = baseline});
  h.run("stage: checks 1-3 (parse, kinds, schema)", [&] { bench::keep(verifier.parse(payload)->etag.size()); },
        {.baseline = baseline});
  h.run("stage: schema validate manifest@1.1.0",
        [&] { bench::keep(schemas->validate(kManifestSchemaId, parsed.doc).has_value()); }, {.baseline = baseline});
  std::string canon;
  h.run("stage: JCS canonicalize", [&] {
    canon.clear();
    jcs::canonicalize(parsed.doc, canon);
    bench::keep(canon.size());
  }, {.baseline = baseline});
  h.run("stage: BLAKE3-256 of P1", [&] { bench::keep(blake3_256(p1)); }, {.baseline = baseline});
  h.run("stage: check 7 (P0, P1 spliced; 2x BLAKE3, Ed25519)", [&] { bench::keep(ManifestVerifier::check_signature(parsed, cert).ok()); },
        {.baseline = baseline});
  h.run("stage: checks 5-6 (identity, X.509 chain)", [&] { bench::keep(verifier.check_identity(parsed, ctx).ok()); },
        {.baseline = baseline});
  h.run("stage: ed25519_verify (fleetmcp)", [&] { bench::keep(ed25519_verify(pk, p1, sig)); }, {.baseline = baseline});

  // A re-announce of a known manifest: BLAKE3 of the raw payload and a hash-map lookup.
  std::unordered_map<Digest32, std::string, DigestHash> known;
  for (int i = 0; i < 10000; ++i) known.emplace(blake3_256(std::to_string(i)), "other");
  known.emplace(blake3_256(payload), parsed.etag);
  h.run("known-etag lookup (BLAKE3 raw + map)", [&] {
    const auto it = known.find(blake3_256(payload));
    bench::keep(it != known.end());
  }, {.baseline = baseline});

  h.expect_ratio("full ManifestVerifier::verify", 0.5);
  h.expect_rate("full ManifestVerifier::verify", 12000);
  h.expect_rate("known-etag lookup (BLAKE3 raw + map)", 200000);
  return h.finish();
}
