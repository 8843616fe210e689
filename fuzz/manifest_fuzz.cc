// fuzz_manifest: docs/protocol.md §5 announce verification. The fuzzer cannot forge Ed25519 signatures, so
// each input is tried twice:
//   1. as received: checks 1-9 against a fixed node certificate (almost always refused early);
//   2. when it passes checks 1-3, re-signed with the node's key after pointing node_id and kid at
//      that node, then verified with the clock at its issued_at_ms: this drives the time,
//      identity, signature and history checks with fuzzer-chosen content.
#include <string>

#include "common/protocol/manifest.h"
#include "common/registry/schema_registry.h"
#include "fuzz/fuzz_target.h"
#include "tests/support/test_pki.h"

using namespace fleetmcp;

namespace {

struct World {
  testing::TestPki pki;
  std::shared_ptr<testing::TestNode> node = pki.enroll("acme");
  ManifestVerifier verifier{SchemaRegistry::load(FLEETMCP_SOURCE_DIR "/schemas"), pki.ca(),
                            std::make_shared<RevocationList>()};
};

World& world() {
  static World* w = new World();  // never destroyed: libFuzzer may exit from any thread
  return *w;
}

void set_string(json::Document& doc, json::Value& v, const std::string& text) {
  v.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), doc.GetAllocator());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  World& w = world();
  const std::string_view payload = fuzz::as_text(data, size);
  AnnounceContext ctx;
  ctx.now_ms = now_ms();
  ctx.topic_node_id = w.node->node_id;
  ctx.publisher_identity = w.node->node_id;
  ctx.certificate = &w.node->certificate;
  fuzz::expect_ok_or_error([&] { (void)w.verifier.verify(payload, ctx); });

  fuzz::expect_ok_or_error([&] {
    auto parsed = w.verifier.parse(payload);
    if (!parsed) return;
    ParsedManifest& m = *parsed;
    set_string(m.doc, m.doc["node_id"], w.node->node_id);
    set_string(m.doc, m.doc["node_attestation"]["kid"], w.node->certificate.thumbprint());
    const std::string signed_bytes = sign_manifest(m.doc, w.node->signing_key).value();
    ctx.now_ms = m.issued_at_ms;
    ctx.last_issued_at_ms = m.issued_at_ms - 1;
    ctx.pinned_hw_fingerprint = m.hw_fingerprint;
    (void)w.verifier.verify(signed_bytes, ctx);
  });
  return 0;
}
