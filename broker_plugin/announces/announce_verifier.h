// docs/protocol.md §5 for announces arriving at the broker: ManifestVerifier's checks, in the table's
// order, with the expensive part (parse, schema, signature) done once per payload and cached
// (verdict_cache.h). The certificate handed in must already be known to chain to the fleet CA:
// the plugin checks that once per connection (client_identity) or, for announces restored from
// persistence, before calling here.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "broker_plugin/announces/manifest_summary.h"
#include "broker_plugin/announces/verdict_cache.h"
#include "common/protocol/manifest.h"

namespace fleetmcp::plugin {

struct AnnounceFacts {
  int64_t now_ms = 0;
  std::string_view topic_node_id;
  std::string_view publisher_identity;           // the node the publisher authenticated as
  const Certificate* certificate = nullptr;      // its certificate (chain already checked)
  std::optional<int64_t> last_issued_at_ms;      // check 8
  std::optional<std::string> pinned_hw_fingerprint;  // check 9 (none after a re-enrolment)
};

struct AnnounceOutcome {
  bool accepted = false;
  bool cache_hit = false;
  Digest32 digest{};
  std::string etag;  // the manifest's etag once it parsed, else hex BLAKE3 of the raw bytes
  std::shared_ptr<const ManifestSummary> manifest;  // whenever checks 1–3 passed
  ErrorEnvelope error;                              // when refused
};

class AnnounceVerifier {
 public:
  AnnounceVerifier(std::shared_ptr<const SchemaRegistry> schemas, Certificate ca,
                   std::shared_ptr<const RevocationList> revoked, size_t cache_capacity);

  AnnounceOutcome check(std::string_view payload, const AnnounceFacts& facts);
  void set_revocations(std::shared_ptr<const RevocationList> revoked);
  // A node's manifest was replaced or withdrawn: its verdict (and the summary it holds) goes.
  // Without this every refresh of every node left ~1.5 KiB behind until the cache filled
  // (verdict_cache_entries, 65536 by default: ~100 MiB), which the soak saw as RSS growth.
  void forget(const Digest32& payload_digest) { cache_.erase(payload_digest); }
  size_t cached() const { return cache_.size(); }

 private:
  CachedVerdict analyse(std::string_view payload, const Digest32& digest, const AnnounceFacts& facts) const;
  void check_identity(const ManifestSummary& m, const AnnounceFacts& facts) const;
  void check_signature(CachedVerdict& verdict, std::string_view payload, const Certificate& cert) const;

  ManifestVerifier verifier_;
  std::shared_ptr<const RevocationList> revoked_;
  VerdictCache cache_;
};

}  // namespace fleetmcp::plugin
