#include "broker_plugin/announces/announce_verifier.h"

#include "common/crypto/digest.h"

namespace fleetmcp::plugin {
namespace {

Error attestation_failed(const std::string& message, const std::string& fix) {
  return Error(ErrorCode::kAttestationFailed, message, fix);
}

// check_time and check_history read only these fields, so a summary stands in for the document.
ParsedManifest shell_of(const ManifestSummary& m) {
  ParsedManifest shell;
  shell.node_id = m.node_id;
  shell.kid = m.kid;
  shell.hw_fingerprint = m.hw_fingerprint;
  shell.etag = m.etag;
  shell.issued_at_ms = m.issued_at_ms;
  shell.expires_at_ms = m.expires_at_ms;
  return shell;
}

AnnounceOutcome refused(const ErrorEnvelope& error, const Digest32& digest, std::string etag,
                        std::shared_ptr<const ManifestSummary> manifest) {
  AnnounceOutcome out;
  out.digest = digest;
  out.etag = std::move(etag);
  out.manifest = std::move(manifest);
  out.error = error;
  return out;
}

}  // namespace

AnnounceVerifier::AnnounceVerifier(std::shared_ptr<const SchemaRegistry> schemas, Certificate ca,
                                   std::shared_ptr<const RevocationList> revoked, size_t cache_capacity)
    : verifier_(std::move(schemas), std::move(ca), revoked), revoked_(std::move(revoked)), cache_(cache_capacity) {}

void AnnounceVerifier::set_revocations(std::shared_ptr<const RevocationList> revoked) {
  verifier_.set_revocations(revoked);
  revoked_ = std::move(revoked);
}

AnnounceOutcome AnnounceVerifier::check(std::string_view payload, const AnnounceFacts& facts) {
  const Digest32 digest = blake3_256(payload);
  if (payload.size() > kMaxManifestBytes) {
    // Refused without caching: nobody re-announces oversize bytes on purpose.
    try {
      verifier_.parse(payload);
    } catch (const Error& e) {
      return refused(e.envelope(), digest, hex_lower(digest), nullptr);
    }
  }
  CachedVerdict* verdict = cache_.find(digest);
  const bool hit = verdict != nullptr;
  if (!hit) verdict = &cache_.put(digest, analyse(payload, digest, facts));
  if (verdict->parse_error) return refused(*verdict->parse_error, digest, hex_lower(digest), nullptr);

  const auto manifest = verdict->manifest;
  try {
    const ParsedManifest shell = shell_of(*manifest);
    verifier_.check_time(shell, facts.now_ms);                 // 4
    check_identity(*manifest, facts);                          // 5, 6
    check_signature(*verdict, payload, *facts.certificate);    // 7
    AnnounceContext history;
    history.last_issued_at_ms = facts.last_issued_at_ms;
    history.pinned_hw_fingerprint = facts.pinned_hw_fingerprint;
    verifier_.check_history(shell, history);                   // 8, 9
  } catch (const Error& e) {
    AnnounceOutcome out = refused(e.envelope(), digest, manifest->etag, manifest);
    out.cache_hit = hit;
    return out;
  }
  AnnounceOutcome out;
  out.accepted = true;
  out.cache_hit = hit;
  out.digest = digest;
  out.etag = manifest->etag;
  out.manifest = manifest;
  return out;
}

CachedVerdict AnnounceVerifier::analyse(std::string_view payload, const Digest32& digest,
                                        const AnnounceFacts& facts) const {
  CachedVerdict verdict;
  ParsedManifest parsed;
  try {
    parsed = verifier_.parse(payload);  // 1–3
  } catch (const Error& e) {
    verdict.parse_error = e.envelope();
    return verdict;
  }
  verdict.manifest = std::make_shared<const ManifestSummary>(ManifestSummary::from(parsed, digest));
  // The signature is checked now, while the document is at hand, when the certificate is the one
  // the manifest names; otherwise check 6 refuses first and check 7 is never needed for it.
  if (facts.certificate != nullptr && facts.certificate->thumbprint() == parsed.kid) {
    try {
      verifier_.check_signature(parsed, *facts.certificate);
      verdict.signature = CachedVerdict::Signature::kValid;
    } catch (const Error& e) {
      verdict.signature = CachedVerdict::Signature::kInvalid;
      verdict.signature_error = e.envelope();
    }
  }
  return verdict;
}

void AnnounceVerifier::check_identity(const ManifestSummary& m, const AnnounceFacts& facts) const {
  if (!facts.topic_node_id.empty() && m.node_id != facts.topic_node_id) {  // 5
    throw attestation_failed("node_id " + m.node_id + " does not match the announce topic's node id",
                             "publish the manifest on $devices/<its own node_id>/announce");
  }
  if (!facts.publisher_identity.empty() && m.node_id != facts.publisher_identity) {
    throw attestation_failed("node_id " + m.node_id + " is not the identity (certificate CN) of the publisher",
                             "a node may only announce its own manifest: use the node_id of the certificate the "
                             "device connects with");
  }
  const Certificate* cert = facts.certificate;  // 6
  if (cert == nullptr) {
    throw attestation_failed("no certificate is known for node " + m.node_id,
                             "connect the node with its enrolled certificate and announce again");
  }
  if (m.kid != cert->thumbprint()) {
    throw attestation_failed("node_attestation.kid " + m.kid + " is not the thumbprint of node " + m.node_id +
                                 "'s certificate (" + cert->thumbprint() + ")",
                             "set kid to the lowercase hex SHA-256 of the DER of the node's own certificate and "
                             "re-sign");
  }
  if (cert->subject_cn() != m.node_id) {
    throw attestation_failed("the certificate CN does not equal node_id " + m.node_id,
                             "sign with the key and certificate of the node the manifest describes");
  }
  if (revoked_->contains(m.node_id)) {
    throw attestation_failed("node " + m.node_id + " is revoked",
                             "an operator revoked this node; re-enroll it under a new node_id if it is trusted again");
  }
}

void AnnounceVerifier::check_signature(CachedVerdict& verdict, std::string_view payload,
                                       const Certificate& cert) const {
  if (verdict.signature == CachedVerdict::Signature::kUnchecked) {
    // First time this payload meets the certificate its kid names: parse it again to verify.
    try {
      verifier_.check_signature(verifier_.parse(payload), cert);
      verdict.signature = CachedVerdict::Signature::kValid;
    } catch (const Error& e) {
      verdict.signature = CachedVerdict::Signature::kInvalid;
      verdict.signature_error = e.envelope();
    }
  }
  if (verdict.signature == CachedVerdict::Signature::kInvalid) throw Error(*verdict.signature_error);
}

}  // namespace fleetmcp::plugin
