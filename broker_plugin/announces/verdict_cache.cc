#include "broker_plugin/announces/verdict_cache.h"

#include <algorithm>
#include <cstring>

namespace fleetmcp::plugin {

size_t VerdictCache::DigestHash::operator()(const Digest32& d) const {
  size_t h = 0;  // the digest is uniformly random already
  std::memcpy(&h, d.data(), sizeof h);
  return h;
}

VerdictCache::VerdictCache(size_t capacity) : generation_capacity_(std::max<size_t>(1, capacity / 2)) {}

CachedVerdict* VerdictCache::find(const Digest32& digest) {
  if (const auto it = young_.find(digest); it != young_.end()) return &it->second;
  const auto it = old_.find(digest);
  if (it == old_.end()) return nullptr;
  CachedVerdict verdict = std::move(it->second);
  old_.erase(it);
  return &put(digest, std::move(verdict));
}

CachedVerdict& VerdictCache::put(const Digest32& digest, CachedVerdict verdict) {
  if (young_.size() >= generation_capacity_ && young_.find(digest) == young_.end()) {
    old_ = std::move(young_);
    young_ = Map();
  }
  return young_.insert_or_assign(digest, std::move(verdict)).first->second;
}

void VerdictCache::erase(const Digest32& digest) {
  young_.erase(digest);
  old_.erase(digest);
}

}  // namespace fleetmcp::plugin
