// The part of an accepted manifest the plugin keeps: enough for status, expiry, replay and
// hardware pinning, and to route calls. The JSON document itself is not kept (docs/protocol.md §10: at
// most 10 KiB per node).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/crypto/digest.h"
#include "common/protocol/manifest.h"

namespace fleetmcp::plugin {

struct ManifestSummary {
  std::string node_id, kid, hw_fingerprint;
  std::string etag;          // hex BLAKE3-256 of the JCS manifest (docs/protocol.md §5)
  Digest32 payload_digest{};  // BLAKE3-256 of the bytes as published: the verdict cache key
  int64_t issued_at_ms = 0, expires_at_ms = 0;
  std::vector<Capability> capabilities;  // with their labels (manifest@1.4.0)
  std::string hostname;                   // "" when the manifest has none
  std::vector<std::string> labels;        // the operator's node labels

  static ManifestSummary from(const ParsedManifest& m, const Digest32& payload_digest);
  const Capability* capability(std::string_view cap_id) const;
  // What checks 4–9 read (common/protocol/manifest.h): views into this summary.
  ManifestFacts facts() const;
};

}  // namespace fleetmcp::plugin
