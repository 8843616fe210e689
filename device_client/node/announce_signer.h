// Produces a node's signed CapabilityManifest (RFC-0001 §2, docs/protocol.md §5) for its retained
// $devices/<id>/announce: the same capabilities, fingerprint, host name and labels every time, a fresh
// issued_at/expires_at window each time it is signed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/protocol/manifest.h"
#include "common/registry/schema_registry.h"
#include "device_client/node/hw_fingerprint.h"
#include "device_client/node/node_identity.h"
#include "device_client/commands/tool_table.h"

namespace fleetmcp::device {

struct SignedAnnounce {
  std::string bytes;  // JCS of the signed manifest: what is published
  std::string etag;
  int64_t issued_at_ms = 0, expires_at_ms = 0;
};

class AnnounceSigner {
 public:
  // `hostname` "" or outside manifest@1.4.0's grammar: none is announced.
  AnnounceSigner(const NodeIdentity& identity, const ToolTable& tools, FingerprintSources sources,
                 int64_t ttl_ms, std::string hostname = {}, std::vector<std::string> labels = {});

  SignedAnnounce sign(int64_t now_ms) const;
  // Signs once and validates the result against kManifestSchemaId, so --check-config and start-up
  // catch a configuration the broker would refuse (a clamp, a bad cap_id …). Throws naming the
  // config file and the failing manifest path.
  void check(const SchemaRegistry& schemas, const std::string& config_file) const;

  int64_t ttl_ms() const { return ttl_ms_; }

 private:
  const NodeIdentity& identity_;
  ManifestContent content_;
  const int64_t ttl_ms_;
};

}  // namespace fleetmcp::device
