#include "broker_plugin/access/client_id_claims.h"

#include <algorithm>

namespace fleetmcp::plugin {

std::optional<ClaimHolder> ClientIdClaims::held_by_another(std::string_view id, const Principal& who,
                                                           int64_t now_ms) const {
  const auto it = claims_.find(id);
  if (it == claims_.end()) return std::nullopt;
  const Claim& claim = it->second;
  if (claim.handle == nullptr && claim.forget_at_ms <= now_ms) return std::nullopt;  // mosquitto dropped it
  if (claim.owner == ClaimOwner::of(who)) return std::nullopt;
  return ClaimHolder{claim.owner, claim.handle != nullptr};
}

void ClientIdClaims::connected(std::string_view id, const Principal& who, const void* handle, bool may_persist,
                               bool durable) {
  auto it = claims_.find(id);
  if (it == claims_.end()) {
    it = claims_.emplace(std::string(id), Claim{}).first;
  } else if (it->second.handle == nullptr) {
    // Resumed (or taken after mosquitto dropped it): no longer among its owner's ended claims.
    auto owner = ended_by_owner_.find(it->second.owner);
    if (owner != ended_by_owner_.end()) {
      std::erase(owner->second, id);
      if (owner->second.empty()) ended_by_owner_.erase(owner);
    }
  }
  Claim claim{.owner = ClaimOwner::of(who), .handle = handle, .may_persist = may_persist, .durable = durable};
  if ((durable || it->second.durable) && (durable != it->second.durable || claim.owner != it->second.owner)) {
    ++durable_changes_;
  }
  it->second = std::move(claim);
}

void ClientIdClaims::disconnected(std::string_view id, const void* handle, int64_t now_ms) {
  const auto it = claims_.find(id);
  if (it == claims_.end() || it->second.handle != handle) return;
  if (!it->second.may_persist) {
    claims_.erase(it);
    return;
  }
  end(id, it->second, keep_ended_ms_ > 0 ? now_ms + keep_ended_ms_ : kNever);
}

void ClientIdClaims::end(std::string_view id, Claim& claim, int64_t forget_at_ms) {
  claim.handle = nullptr;
  claim.forget_at_ms = forget_at_ms;
  std::vector<std::string>& ended = ended_by_owner_[claim.owner];
  ended.emplace_back(id);
  // `claim` may be the one forgotten here: nothing below touches it.
  if (ended.size() > kMaxEndedPerOwner) forget(std::string(ended.front()));
}

void ClientIdClaims::forget(std::string_view id) {
  const auto it = claims_.find(id);
  if (it == claims_.end()) return;
  const auto owner = ended_by_owner_.find(it->second.owner);
  if (owner != ended_by_owner_.end()) {
    std::erase(owner->second, id);
    if (owner->second.empty()) ended_by_owner_.erase(owner);
  }
  if (it->second.durable) ++durable_changes_;
  claims_.erase(it);
}

void ClientIdClaims::forget_expired(int64_t now_ms) {
  std::vector<std::string> expired;
  for (const auto& [owner, ids] : ended_by_owner_) {
    for (const std::string& id : ids) {
      if (claims_.find(id)->second.forget_at_ms <= now_ms) expired.push_back(id);
    }
  }
  for (const std::string& id : expired) forget(id);
}

std::vector<DurableClaim> ClientIdClaims::durable() const {
  std::vector<DurableClaim> out;
  for (const auto& [id, claim] : claims_) {
    if (claim.durable) out.push_back({id, claim.owner});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.client_id < b.client_id; });
  return out;
}

void ClientIdClaims::restore(const std::vector<DurableClaim>& claims) {
  for (const DurableClaim& c : claims) {
    if (c.client_id.size() > kMaxIdBytes || claims_.contains(c.client_id)) continue;
    Claim& claim = claims_[c.client_id];
    claim.owner = c.owner;
    claim.durable = true;
    end(c.client_id, claim, kNever);
  }
}

}  // namespace fleetmcp::plugin
