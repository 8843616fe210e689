#include "broker_plugin/announces/announce_verifier.h"

#include "common/crypto/digest.h"

namespace fleetmcp::plugin {
AnnounceVerifier::AnnounceVerifier(std::shared_ptr<const SchemaRegistry> schemas, Certificate ca,
                                   std::shared_ptr<const RevocationList> revoked, size_t cache_capacity)
    : verifier_(std::move(schemas), std::move(ca), std::move(revoked)), cache_(cache_capacity) {}

AnnounceVerdict AnnounceVerifier::check(std::string_view payload, const AnnounceContext& facts) {
  ++verifications_;
  const Digest32 digest = blake3_256(payload);
  if (payload.size() > kMaxManifestBytes) {
    // Refused without caching: nobody re-announces oversize bytes on purpose.
    auto parsed = verifier_.parse(payload);
    if (!parsed) return AnnounceRefusal{std::move(parsed).error(), hex_lower(digest), false};
  }
  CachedVerdict* verdict = cache_.find(digest);
  const bool hit = verdict != nullptr;
  if (!hit) verdict = &cache_.put(digest, analyse(payload, digest, facts.certificate));
  if (!verdict->manifest) return AnnounceRefusal{verdict->manifest.error(), hex_lower(digest), hit};

  const auto& manifest = *verdict->manifest;
  Status checks = verifier_.check_after_parse(manifest->facts(), facts, [&](const Certificate& cert) {
    return signature_of(*verdict, payload, cert);
  });  // 4–9
  if (!checks) return AnnounceRefusal{std::move(checks).error(), manifest->etag, hit};
  return AcceptedAnnounce{manifest->etag, manifest, hit};
}

CachedVerdict AnnounceVerifier::analyse(std::string_view payload, const Digest32& digest,
                                        const Certificate* cert) const {
  auto parsed = verifier_.parse(payload);  // 1–3
  if (!parsed) return CachedVerdict{std::move(parsed).error(), std::nullopt};
  CachedVerdict verdict{std::make_shared<const ManifestSummary>(ManifestSummary::from(*parsed, digest)), std::nullopt};
  // The signature is checked now, while the document is at hand, when the certificate is the one
  // the manifest names; otherwise check 6 refuses first and check 7 is never needed for it.
  if (cert != nullptr && cert->thumbprint() == parsed->kid) verdict.signature = ManifestVerifier::check_signature(*parsed, *cert);
  return verdict;
}

Status AnnounceVerifier::signature_of(CachedVerdict& verdict, std::string_view payload, const Certificate& cert) const {
  if (!verdict.signature) {
    // First time this payload meets the certificate its kid names: parse it again to verify.
    auto parsed = verifier_.parse(payload);
    verdict.signature = parsed ? ManifestVerifier::check_signature(*parsed, cert) : Status(parsed.error());
  }
  return *verdict.signature;
}

}  // namespace fleetmcp::plugin
