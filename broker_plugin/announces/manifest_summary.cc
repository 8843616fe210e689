#include "broker_plugin/announces/manifest_summary.h"

namespace fleetmcp::plugin {

ManifestSummary ManifestSummary::from(const ParsedManifest& m, const Digest32& payload_digest) {
  ManifestSummary s;
  s.node_id = m.node_id;
  s.kid = m.kid;
  s.hw_fingerprint = m.hw_fingerprint;
  s.etag = m.etag;
  s.payload_digest = payload_digest;
  s.issued_at_ms = m.issued_at_ms;
  s.expires_at_ms = m.expires_at_ms;
  s.capabilities = m.capabilities;
  s.hostname = m.hostname;
  s.labels = m.labels;
  return s;
}

ManifestFacts ManifestSummary::facts() const {
  ManifestFacts f;
  f.node_id = node_id;
  f.kid = kid;
  f.hw_fingerprint = hw_fingerprint;
  f.issued_at_ms = issued_at_ms;
  f.expires_at_ms = expires_at_ms;
  return f;
}

const Capability* ManifestSummary::capability(std::string_view cap_id) const {
  for (const auto& cap : capabilities) {
    if (cap.cap_id == cap_id) return &cap;
  }
  return nullptr;
}

}  // namespace fleetmcp::plugin
