// docs/protocol.md §6.1 for announces arriving at the broker: ManifestVerifier's one sequence of
// checks (common/protocol/manifest.h), with what depends on the bytes alone (parse, kinds,
// schema, signature) done once per payload and cached (verdict_cache.h). What this class adds is
// the cache and the facts the plugin supplies: revocations, the node's certificate, the clock.
// The certificate handed in must already be known to chain to the fleet CA: the plugin checks
// that once per connection (client_identity) or, for announces restored from persistence, before
// calling here (AnnounceContext::chain_verified).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "broker_plugin/announces/manifest_summary.h"
#include "broker_plugin/announces/verdict_cache.h"
#include "common/protocol/manifest.h"

namespace fleetmcp::plugin {

// An announce that passed every check: what the plugin keeps.
struct AcceptedAnnounce {
  std::string etag;
  std::shared_ptr<const ManifestSummary> manifest;
  bool cache_hit = false;  // the bytes' verdict was cached (plugin counter announce_cache_hits)
};

// Why an announce was refused, and the etag its rejected message names (docs/protocol.md §6.1).
struct AnnounceRefusal {
  ErrorEnvelope error;
  std::string etag;  // the manifest's etag once it parsed, else hex BLAKE3 of the raw bytes
  bool cache_hit = false;
};

using AnnounceVerdict = Result<AcceptedAnnounce, AnnounceRefusal>;

class AnnounceVerifier {
 public:
  AnnounceVerifier(std::shared_ptr<const SchemaRegistry> schemas, Certificate ca,
                   std::shared_ptr<const RevocationList> revoked, size_t cache_capacity);

  AnnounceVerdict check(std::string_view payload, const AnnounceContext& facts);
  void set_revocations(std::shared_ptr<const RevocationList> revoked) { verifier_.set_revocations(std::move(revoked)); }
  // A node's manifest was replaced or withdrawn: its verdict (and the summary it holds) goes.
  // Without this every refresh of every node left ~1.5 KiB behind until the cache filled
  // (verdict_cache_entries, 65536 by default: ~100 MiB), which the soak saw as RSS growth.
  void forget(const Digest32& payload_digest) { cache_.erase(payload_digest); }
  size_t cached() const { return cache_.size(); }
  // How many announces check() has judged: the tests' measure of work done once.
  uint64_t verifications() const { return verifications_; }

 private:
  CachedVerdict analyse(std::string_view payload, const Digest32& digest, const Certificate* cert) const;
  // Check 7 from the verdict, verifying (and remembering) it the first time the payload meets
  // the certificate its kid names.
  Status signature_of(CachedVerdict& verdict, std::string_view payload, const Certificate& cert) const;

  ManifestVerifier verifier_;
  VerdictCache cache_;
  uint64_t verifications_ = 0;
};

}  // namespace fleetmcp::plugin
