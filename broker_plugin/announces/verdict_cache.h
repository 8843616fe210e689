// Verdicts on announce payloads, keyed by the BLAKE3-256 of the bytes as published (for a
// canonically published manifest that is its etag). What is cached is what depends on the bytes
// alone: docs/protocol.md §5 checks 1–3 and the signature (check 7, valid for the one certificate whose
// thumbprint is the manifest's kid). Time, identity and history are re-checked on every use, so
// a re-announce with a known etag costs a hash and a lookup.
//
// Bounded with two generations: when the young one fills it becomes the old one and the old one
// is dropped; a hit in the old generation moves the entry back to the young one.
#pragma once

#include <memory>
#include <optional>
#include <unordered_map>

#include "broker_plugin/announces/manifest_summary.h"
#include "common/base/result.h"

namespace fleetmcp::plugin {

struct CachedVerdict {
  // Checks 1–3: the manifest's summary, or why the bytes were refused.
  Result<std::shared_ptr<const ManifestSummary>> manifest;
  // Check 7 against the certificate the manifest's kid names; empty until it was first needed.
  std::optional<Status> signature;
};

class VerdictCache {
 public:
  explicit VerdictCache(size_t capacity);

  // The pointer stays valid until the next put().
  CachedVerdict* find(const Digest32& digest);
  CachedVerdict& put(const Digest32& digest, CachedVerdict verdict);
  // Drops a verdict nobody will ask for again (a node's superseded manifest): it may hold the
  // only reference to that manifest's summary.
  void erase(const Digest32& digest);
  size_t size() const { return young_.size() + old_.size(); }

 private:
  struct DigestHash {
    size_t operator()(const Digest32& d) const;
  };
  using Map = std::unordered_map<Digest32, CachedVerdict, DigestHash>;
  size_t generation_capacity_;
  Map young_, old_;
};

}  // namespace fleetmcp::plugin
